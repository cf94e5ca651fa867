// SPDX-License-Identifier: Apache-2.0
// A batch renders each merge fragment once, not once per template.
//
// A tenant's apps share their manifest's steps: each app's render merges the
// same fragment, rendered by the same rules and values (SPEC Rule 4), and it
// was rendered again for every app (~0.27 M instructions each). Where the
// values the fragment can read are the same for two apps, so is its render:
// a render reads a value only through a reference, and a reference names its
// variable verbatim in the text (escapes are not decoded before references
// are found), so the values whose names do not occur in the fragment's bytes
// cannot change it. With --set-from-filename APP, a fragment that never names
// APP is rendered once per batch. Internal to the library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "safesubst/diagnostic.h"
#include "safesubst/values.h"
#include "script_kinds.h"

namespace safesubst::detail {

/// What rendering one merge fragment gave, when it gave no error.
struct RenderedFragment {
  std::string output;
  Diagnostics diagnostics;              ///< warnings and notes only
  std::vector<EncodedScalar> encoded;   ///< its substituted scalars, for the check after the steps
  std::vector<std::string> secrets;     ///< its sensitive values as written (RenderOptions::report_sensitive_spans)
};

/// What the render of fragment `file` with bytes `text`, merged into `path`,
/// depends on besides the manifest and the options: those bytes, and every
/// value (text, source and origin) whose name occurs in them.
std::string FragmentRenderKey(std::string_view file, std::string_view text, std::string_view path,
                              const ValueSet& values);

/// While one lives on a thread, the fragments rendered there are remembered
/// by FragmentRenderKey (RememberRenderedFragment) and found again
/// (FindRenderedFragment). Create one only around renders that share one
/// manifest and one set of options but the file name, as the templates of
/// one `render` command do. The outermost one overwrites and forgets what it
/// remembered when it ends: the texts may hold secret values.
class RememberRenderedFragments {
 public:
  RememberRenderedFragments();
  ~RememberRenderedFragments();
  RememberRenderedFragments(const RememberRenderedFragments&) = delete;
  RememberRenderedFragments& operator=(const RememberRenderedFragments&) = delete;

 private:
  bool outermost_;
};

/// The fragment remembered under `key` on this thread, or nullptr.
const RenderedFragment* FindRenderedFragment(const std::string& key);

/// Remembers `rendered` under `key`, while a RememberRenderedFragments lives on this thread.
void RememberRenderedFragment(std::string key, RenderedFragment rendered);

}  // namespace safesubst::detail
