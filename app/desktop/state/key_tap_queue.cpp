#include "state/key_tap_queue.h"

#include <algorithm>

namespace attnviz {

bool KeyTapQueue::arrived(const KeyEvent& event) {
  const bool pressed_unseen =
      std::find(pressed_since_frame_.begin(), pressed_since_frame_.end(), event.key) != pressed_since_frame_.end();
  if (event.action == release_ && pressed_unseen) {
    held_.push_back(event);
    return false;
  }
  if (event.action == press_) pressed_since_frame_.push_back(event.key);
  return true;
}

void KeyTapQueue::frame_begun() {
  pressed_since_frame_.clear();
  due_.insert(due_.end(), held_.begin(), held_.end());
  held_.clear();
}

std::vector<KeyEvent> KeyTapQueue::frame_ended() {
  std::vector<KeyEvent> now;
  now.swap(due_);
  return now;
}

}  // namespace attnviz
