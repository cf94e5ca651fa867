# SPDX-License-Identifier: Apache-2.0
EFS_HOST="${EFS_HOSTNAME}"
EFS_2A="${EFS_IP_2A}"
EFS_2C="${EFS_IP_2C}"
OCT3=$(echo "$NODE_IP" | cut -d. -f3)
case "$OCT3" in
  ''|*[!0-9]*)
    # NODE_IP가 비거나 이상하면 2a로 폴백하고 로그를 남긴다
    echo "[efs-zone] WARN: NODE_IP invalid ('$NODE_IP'), fallback to 2a"
    EFS_IP="$EFS_2A" ;;
  *)
    if [ "$OCT3" -le ${ZONE_BOUNDARY} ]; then EFS_IP="$EFS_2A"; else EFS_IP="$EFS_2C"; fi ;;
esac
echo "[efs-zone] node=$NODE_IP -> efs=$EFS_IP"
# 컨테이너만 재시작되면 /etc/hosts가 남아 있으므로 중복 기록을 막는다
grep -q "$EFS_HOST" /etc/hosts || echo "$EFS_IP $EFS_HOST" >> /etc/hosts
cd /home/app
exec sh start.sh   # 이미지의 원래 CMD를 그대로 재현
