// libFuzzer target: session_from_json on arbitrary text. An accepted session, written out again by
// session_to_json, must read back and write out the same text: a saved session never changes
// meaning on reload. Reads memory only.
#include "fuzz/fuzz_check.h"
#include "io/session.h"

namespace attnviz::fuzz {

std::string fuzz_session(Bytes bytes) {
  auto session = session_from_json(bytes_text(bytes));
  if (!session.ok()) return error_needs_message(session.error(), "session_from_json");
  const std::string written = session_to_json(*session);
  auto again = session_from_json(written);
  if (!again.ok()) return "a written session was refused on reading: " + again.error();
  if (session_to_json(*again) != written) return "a session changed in a write and read";
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_session)
