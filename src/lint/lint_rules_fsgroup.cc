// SPDX-License-Identifier: Apache-2.0
// Rule fsgroup-recursive-chown: fsGroup on a pod that mounts a
// PersistentVolumeClaim, without fsGroupChangePolicy: OnRootMismatch.
//
// kubelet applies fsGroup by walking the whole volume at every mount
// (volume.SetVolumeOwnership). It skips volumes no container mounts (the
// volume manager ignores unused volumes) and read-only ones (the CSI mounter's
// supportsFSGroup), so those do not count here either.
#include "lint_internal.h"
#include "yaml_encoding.h"

namespace safesubst::lint {

namespace {

bool IsNullScalar(const Node& node) {
  return !node.IsDefined() || node.IsNull() || (node.IsScalar() && ResolvePlain(node.Scalar()) == PlainKind::kNull);
}

bool MountedByAnyContainer(const Pod& pod, const std::string& volume) {
  for (const Container& container : pod.containers) {
    if (container.mounted_volumes.count(volume) != 0) return true;
  }
  return false;
}

// Names of the claims the pod mounts read-write: persistentVolumeClaim
// volumes and a StatefulSet's volumeClaimTemplates.
std::vector<std::string> MountedClaims(const Pod& pod) {
  std::vector<std::string> claims;
  for (const Node& volume : Get(pod.spec, "volumes").Items()) {
    Node claim = Get(volume, "persistentVolumeClaim");
    if (!claim.IsMap() || ScalarText(Get(claim, "readOnly")) == "true") continue;
    std::string name = ScalarText(Get(volume, "name"));
    if (MountedByAnyContainer(pod, name)) claims.push_back(name);
  }
  for (const Node& claim_template : pod.volume_claim_templates.Items()) {
    std::string name = ScalarText(Path(claim_template, {"metadata", "name"}));
    if (!name.empty() && MountedByAnyContainer(pod, name)) claims.push_back(name);
  }
  return claims;
}

}  // namespace

void CheckFsGroupRecursiveChown(const Pod& pod, const Source& source, Emitter& emit) {
  Node security_context = Get(pod.spec, "securityContext");
  Node key, fs_group;
  if (!GetWithKey(security_context, "fsGroup", &key, &fs_group) || IsNullScalar(fs_group)) return;
  // OnRootMismatch is the fix; an explicit Always is a decision someone made.
  if (Get(security_context, "fsGroupChangePolicy").IsDefined()) return;
  std::vector<std::string> claims = MountedClaims(pod);
  if (claims.empty()) return;
  std::string names;
  for (const std::string& claim : claims) names += (names.empty() ? "" : ", ") + claim;
  emit.Add("fsgroup-recursive-chown", Severity::kWarning, source.NodeOffset(key), pod.object, "",
           "fsGroup: " + ScalarText(fs_group) + " with persistent volume" + (claims.size() > 1 ? "s " : " ") +
               names +
               " and no fsGroupChangePolicy: kubelet changes the group of every file on the volume each time "
               "the pod starts; add fsGroupChangePolicy: OnRootMismatch");
}

}  // namespace safesubst::lint
