// SPDX-License-Identifier: Apache-2.0
#include "text_diff.h"

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace safesubst {

namespace {

// The lines of `text`, each with its newline (a last line may have none, and
// then differs from the same line with one, as in diff).
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size() - 1) + 1;
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return lines;
}

// Which lines of `before` are removed and which of `after` are added, found
// by Myers' algorithm: the middle snake of the forward and backward searches
// splits the problem in two, so memory stays linear in the number of lines
// (E. Myers, "An O(ND) Difference Algorithm and Its Variations", 1986, 4b).
// Lines are compared as numbers: equal numbers, equal lines.
class EditScript {
 public:
  EditScript(std::vector<int> before, std::vector<int> after)
      : before_(std::move(before)), after_(std::move(after)),
        removed_(before_.size(), false), added_(after_.size(), false) {
    Compare(0, static_cast<long>(before_.size()), 0, static_cast<long>(after_.size()));
  }
  const std::vector<bool>& removed() const { return removed_; }
  const std::vector<bool>& added() const { return added_; }

 private:
  void Compare(long a_begin, long a_end, long b_begin, long b_end) {
    while (a_begin < a_end && b_begin < b_end && before_[a_begin] == after_[b_begin]) ++a_begin, ++b_begin;
    while (a_begin < a_end && b_begin < b_end && before_[a_end - 1] == after_[b_end - 1]) --a_end, --b_end;
    if (a_begin == a_end || b_begin == b_end) {
      for (long i = a_begin; i < a_end; ++i) removed_[i] = true;
      for (long j = b_begin; j < b_end; ++j) added_[j] = true;
      return;
    }
    const auto [x, y] = MiddleSnake(a_begin, a_end, b_begin, b_end);
    Compare(a_begin, x, b_begin, y);
    Compare(x, a_end, y, b_end);
  }

  // A point (x, y) on a shortest edit path of the two ranges, neither at its
  // start nor at its end (the ranges differ at both ends: Compare trimmed
  // them). The forward search runs from the start, the backward one from the
  // end, one edit more each round, until their paths overlap.
  std::pair<long, long> MiddleSnake(long a_begin, long a_end, long b_begin, long b_end) const {
    const long n = a_end - a_begin, m = b_end - b_begin;
    const long max_d = (n + m + 1) / 2;
    const long offset = max_d + 1;
    // forward[offset + k]: the furthest x reached on diagonal k = x - y;
    // backward[offset + k]: the same for both sequences read from their ends.
    std::vector<long> forward(2 * offset + 2, -1), backward(2 * offset + 2, -1);
    forward[offset + 1] = 0;
    backward[offset + 1] = 0;
    const long delta = n - m;
    const bool odd = delta % 2 != 0;  // the forward search finds the overlap
    auto a = [&](long i) { return before_[a_begin + i]; };
    auto b = [&](long j) { return after_[b_begin + j]; };
    // Diagonals that left the grid are not searched again.
    long forward_low = 0, forward_high = 0, backward_low = 0, backward_high = 0;
    for (long d = 0; d <= max_d; ++d) {
      for (long k = -d + forward_low; k <= d - forward_high; k += 2) {
        long x = (k == -d || (k != d && forward[offset + k - 1] < forward[offset + k + 1]))
                     ? forward[offset + k + 1]
                     : forward[offset + k - 1] + 1;
        long y = x - k;
        while (x < n && y < m && a(x) == b(y)) ++x, ++y;
        forward[offset + k] = x;
        if (x > n) {
          forward_high += 2;
        } else if (y > m) {
          forward_low += 2;
        } else if (odd) {
          const long opposite = offset + delta - k;
          if (opposite >= 0 && opposite < static_cast<long>(backward.size()) && backward[opposite] != -1 &&
              x >= n - backward[opposite]) {
            return {a_begin + x, b_begin + y};
          }
        }
      }
      for (long k = -d + backward_low; k <= d - backward_high; k += 2) {
        long u = (k == -d || (k != d && backward[offset + k - 1] < backward[offset + k + 1]))
                     ? backward[offset + k + 1]
                     : backward[offset + k - 1] + 1;
        long v = u - k;
        while (u < n && v < m && a(n - u - 1) == b(m - v - 1)) ++u, ++v;
        backward[offset + k] = u;
        if (u > n) {
          backward_high += 2;
        } else if (v > m) {
          backward_low += 2;
        } else if (!odd) {
          const long opposite = offset + delta - k;
          if (opposite >= 0 && opposite < static_cast<long>(forward.size()) && forward[opposite] != -1) {
            const long x = forward[opposite];
            if (x >= n - u) return {a_begin + x, b_begin + x - (opposite - offset)};
          }
        }
      }
    }
    return {a_end, b_begin};  // not reached: the searches meet by round max_d
  }

  std::vector<int> before_, after_;
  std::vector<bool> removed_, added_;
};

// "-start,count" as diff writes a hunk's range: an empty range names the
// line before it, a range of one line has no count.
std::string Range(char sign, std::size_t first, std::size_t count) {
  std::string range(1, sign);
  range += std::to_string(count == 0 ? first : first + 1);
  if (count != 1) range += "," + std::to_string(count);
  return range;
}

void AppendLine(std::string* out, const DiffLine& line, const ShowDiffLine& show) {
  *out += line.kind;
  const bool newline = !line.text.empty() && line.text.back() == '\n';
  if (show) {
    *out += show(line);
    if (newline) *out += '\n';
  } else {
    out->append(line.text);
  }
  if (!newline) *out += "\n\\ No newline at end of file\n";
}

// Pairs the k-th removed line of each change with its k-th added line.
void PairChanges(std::vector<DiffLine>* lines) {
  for (std::size_t removed = 0; removed < lines->size();) {
    if ((*lines)[removed].kind != '-') {
      ++removed;
      continue;
    }
    std::size_t added = removed;
    while (added < lines->size() && (*lines)[added].kind == '-') ++added;
    const std::size_t removed_end = added;
    for (std::size_t k = removed; k < removed_end && added < lines->size() && (*lines)[added].kind == '+'; ++k) {
      (*lines)[k].pair = (*lines)[added++].text;
    }
    removed = removed_end;
  }
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view before_name,
                        std::string_view after_name, int context, const ShowDiffLine& show) {
  if (before == after) return "";
  const std::vector<std::string_view> old_lines = SplitLines(before), new_lines = SplitLines(after);
  std::unordered_map<std::string_view, int> numbers;
  auto number = [&](const std::vector<std::string_view>& lines) {
    std::vector<int> numbered;
    numbered.reserve(lines.size());
    for (std::string_view line : lines) numbered.push_back(numbers.emplace(line, numbers.size()).first->second);
    return numbered;
  };
  std::vector<int> old_numbers = number(old_lines);
  const EditScript script(std::move(old_numbers), number(new_lines));

  // The whole script, removals before additions within each change.
  std::vector<DiffLine> lines;
  for (std::size_t i = 0, j = 0; i < old_lines.size() || j < new_lines.size();) {
    if (i < old_lines.size() && script.removed()[i]) {
      lines.push_back({'-', old_lines[i++], {}});
    } else if (j < new_lines.size() && script.added()[j]) {
      lines.push_back({'+', new_lines[j++], {}});
    } else {
      lines.push_back({' ', new_lines[j++], {}});
      ++i;
    }
  }
  PairChanges(&lines);

  std::string out = "--- " + std::string(before_name) + "\n+++ " + std::string(after_name) + "\n";
  const std::size_t reach = static_cast<std::size_t>(std::max(context, 0));
  std::size_t old_line = 0, new_line = 0;  // lines of each side before lines[next]
  for (std::size_t next = 0; next < lines.size();) {
    // A hunk: from `reach` lines before a change to `reach` lines after the
    // last change that is at most 2 * reach unchanged lines from the one before.
    std::size_t change = next;
    while (change < lines.size() && lines[change].kind == ' ') ++change;
    if (change == lines.size()) break;
    const std::size_t start = change - std::min(reach, change - next);
    for (std::size_t i = next; i < start; ++i) ++old_line, ++new_line;
    // Changes at most 2 * reach unchanged lines apart share a hunk.
    std::size_t last_change = change;
    for (std::size_t i = change + 1; i < lines.size() && i - last_change - 1 <= 2 * reach; ++i) {
      if (lines[i].kind != ' ') last_change = i;
    }
    const std::size_t end = std::min(lines.size(), last_change + 1 + reach);
    const std::size_t old_count = static_cast<std::size_t>(
        std::count_if(lines.begin() + static_cast<long>(start), lines.begin() + static_cast<long>(end),
                      [](const DiffLine& line) { return line.kind != '+'; }));
    const std::size_t new_count = static_cast<std::size_t>(
        std::count_if(lines.begin() + static_cast<long>(start), lines.begin() + static_cast<long>(end),
                      [](const DiffLine& line) { return line.kind != '-'; }));
    out += "@@ " + Range('-', old_line, old_count) + " " + Range('+', new_line, new_count) + " @@\n";
    for (std::size_t i = start; i < end; ++i) AppendLine(&out, lines[i], show);
    old_line += old_count;
    new_line += new_count;
    next = end;
  }
  return out;
}

}  // namespace safesubst
