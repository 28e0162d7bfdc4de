// Quick key taps on slow frames (state/key_tap_queue.h): a key pressed and released between two
// frames is seen down for one frame, and its release reaches ImGui between frames, never inside one
// (Ctrl released inside a frame aborted the app in CI: ImGui's io.KeyMods no longer matched io.KeyCtrl).
#include <doctest/doctest.h>

#include "state/key_tap_queue.h"

using namespace attnviz;

namespace {

constexpr int kPress = 1, kRelease = 0, kRepeat = 2;  // GLFW's values
constexpr int kCtrl = 341, kA = 65, kB = 66;

KeyEvent press(int key) { return {key, key + 1000, kPress, 0}; }
KeyEvent release(int key) { return {key, key + 1000, kRelease, 0}; }

}  // namespace

TEST_CASE("a key tapped between two frames is released only after the next frame has ended") {
  KeyTapQueue q(kPress, kRelease);
  // Ctrl+A tapped by xdotool while a frame was drawn: all four events come before the next frame.
  CHECK(q.arrived(press(kCtrl)));
  CHECK(q.arrived(press(kA)));
  CHECK_FALSE(q.arrived(release(kA)));
  CHECK_FALSE(q.arrived(release(kCtrl)));
  q.frame_begun();  // NewFrame: Ctrl and A are down for this frame; nothing changes inside it
  const std::vector<KeyEvent> after = q.frame_ended();
  REQUIRE(after.size() == 2);
  CHECK(after[0].key == kA);
  CHECK(after[0].action == kRelease);
  CHECK(after[0].scancode == kA + 1000);
  CHECK(after[1].key == kCtrl);
  CHECK(q.frame_ended().empty());  // delivered once
}

TEST_CASE("a key held across a frame is released at once") {
  KeyTapQueue q(kPress, kRelease);
  CHECK(q.arrived(press(kB)));
  q.frame_begun();
  CHECK(q.frame_ended().empty());
  CHECK(q.arrived({kB, 0, kRepeat, 0}));  // repeats pass through
  CHECK(q.arrived(release(kB)));          // its press was seen by a frame: nothing held
  q.frame_begun();
  CHECK(q.frame_ended().empty());
}

TEST_CASE("a release that arrives during a frame's wait is held for the next frame, not the one that ended") {
  KeyTapQueue q(kPress, kRelease);
  q.frame_begun();
  CHECK(q.frame_ended().empty());
  // Between frames (the loop's wait): B pressed and released.
  CHECK(q.arrived(press(kB)));
  CHECK_FALSE(q.arrived(release(kB)));
  CHECK(q.frame_ended().empty());  // not before a frame has seen B down
  q.frame_begun();
  const std::vector<KeyEvent> after = q.frame_ended();
  REQUIRE(after.size() == 1);
  CHECK(after[0].key == kB);
}
