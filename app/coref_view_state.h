// What the Coreference view remembers between frames (panel_coref.cpp). Lives in AppState.
#pragma once

namespace attnviz {

struct CorefViewState {
  int pair_layer = -1, pair_head = -1;  // the head whose minimal-pair heatmaps are shown; -1: the best head
};

}  // namespace attnviz
