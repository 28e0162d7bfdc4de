#include "model/head_map.h"

namespace attnviz {

namespace {

// Its weights are the trace's own: kept, or an attention file's (no Q and K to form them from).
bool held(const HeadTrace& head) { return head.weights_kept.size() > 0 || head.q.size() == 0; }

}  // namespace

HeadMap head_map(const Trace& t, int layer, int h) {
  const HeadTrace& head = t.head(layer, h);
  if (held(head)) return HeadMap::of_kept(head.weights_kept);
  return HeadMap::of_formed(head_weights_from_qk(head, t.config, trace_layer_mask(t, layer)));
}

std::shared_ptr<const Mat> head_map_shared(const Trace& t, int layer, int h) {
  const HeadTrace& head = t.head(layer, h);
  if (held(head))
    return std::shared_ptr<const Mat>(std::shared_ptr<const Mat>(), &head.weights_kept);  // aliasing: owns nothing
  return std::make_shared<const Mat>(head_weights_from_qk(head, t.config, trace_layer_mask(t, layer)));
}

Mat head_map_rows(const Trace& t, int layer, int h, int first, int n) {
  const HeadTrace& head = t.head(layer, h);
  if (held(head)) return head.weights_kept.middleRows(first, n);
  return head_weights_rows_from_qk(head, t.config, trace_layer_mask(t, layer), first, n);
}

float head_map_at(const Trace& t, int layer, int h, int q, int k) {
  const HeadTrace& head = t.head(layer, h);
  if (held(head)) return head.weights_kept(q, k);
  return head_weights_rows_from_qk(head, t.config, trace_layer_mask(t, layer), q, 1)(0, k);
}

}  // namespace attnviz
