// What a trace that forms its maps on demand (MapsKept::none: a long input) keeps of each layer, and
// the rest recomputed when a reader needs it. Such a trace keeps each layer's input x_in and each
// head's Q, K, V and output, and the last layer's output; the layer's other intermediates (the norms'
// outputs, the concat and W_O's output, the residual sums, the FFN, Q and K before the rotation) are
// released as the forward passes them: for a Llama-3-8B-shaped model 2.6 MB a token instead of
// 9.2 MB. Every reader of those fields goes through here or checks that they are kept.
#pragma once
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

// Whether the trace's layers keep only their input, their heads and the last layer's output.
bool trace_layers_lean(const Trace& trace);

// Releases what a lean trace does not keep (`keep_out`: the last layer's output stays).
void layer_trace_release(LayerTrace& layer, bool keep_out);

// Layer l's output (T, C): the next layer's input, or the last layer's own output.
const Mat& trace_layer_output(const Trace& trace, int l);

// Rows [first, first + n) of layer l's concat (n, NH·HS): the kept one, or its heads' outputs side by
// side, the heads the trace switched off replaced as the forward replaced them (ablation_apply).
Mat trace_layer_concat_rows(const Trace& trace, int l, int first, int n);

// Layer l's intermediates for rows [first, first + n), from its kept input rows and its heads' outputs
// on them (the FFN and the norms act on each row alone): attn (concat and out, no heads), resid1,
// ffn_in, ffn_hidden, ffn_out, the sublayer norms' outputs and out, as the forward computed them (to
// the rounding of a product over fewer rows). An error when the layer's weights cannot be decoded.
Result<LayerTrace> trace_layer_rows(const Model& model, const Trace& trace, int l, int first, int n);

// Layer l as Step by step shows it, for head h: x_in, attn_in, the concat and W_O's output over every
// row, and head h with its Q and K before the rotation (projected again from attn_in). The other
// heads are left empty. A kept layer is copied as it is.
Result<LayerTrace> trace_layer_for_lecture(const Model& model, const Trace& trace, int l, int h);

}  // namespace attnviz
