// view_figure: the one switch from a view to its figure builder, and the common refusal when
// there is no trace yet (Train draws its run, Architecture the model's sizes: neither needs one).
#include "state/view_figure.h"

#include "model/model.h"

namespace attnviz {

Result<Figure> view_figure(AppState& app, View view, const FontRaster* font) {
  if (view != View::train && view != View::arch && view != View::translate && !app.trace)
    return make_error(std::string(view_id(view)) + ": nothing to export yet (no attention has been computed)");
  switch (view) {
    case View::heads: return heads_figure(app, font);
    case View::model: return model_figure(app, font);
    case View::arch: return arch_figure(app, font);
    case View::lines: return lines_figure(app, font);
    case View::compare: return compare_figure(app, font);
    case View::steps: return steps_figure(app, font);
    case View::stats:
      // The lens and the flow graph are computed off the UI thread while the view shows them; a page
      // carries them whether or not the view was drawn, so they are computed here if they must be.
      if (app.trace_model && !app.trace->weights_only && !app.trace->cross) {
        if (model_output_head(*app.trace_model) != OutputHead::none) (void)lens_wait(app);
        (void)flow_wait(app);
      }
      return stats_figure(app, font);
    case View::coref: return coref_figure(app, font);
    case View::train: return train_figure(app, font);
    case View::translate: return translate_figure(app, font);
  }
  return make_error("unknown view");
}

}  // namespace attnviz
