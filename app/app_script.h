// --script FILE: drives the app through a list of actions, one per line, as a person would with
// mouse and keyboard — used by the GUI tests. Each action runs once the engine has answered the
// previous one, and a frame is drawn in between. Layers, heads and queries count from 0.
//
//   sentence TEXT | source TEXT | cross on|off | compare_sentence TEXT
//   d_model N | heads N | layers N | ffn N (0: attention only) | seed N | score NAME | temperature T | norm post|pre
//   mask causal on|off | mask window R|off | mask strided S|off | mask pad N|off | mask hide Q K | mask none
//   model sandbox|coref|induction|trained | model file PATH | vocabulary on|off
//   view heads|model|lines|compare|steps|stats|coref|train | compare MODE | layer L | head H | query Q | step S
//   lang en|ko | presentation on|off | annotate on|off | colormap NAME
//   export png PATH [SCALE] | export csv PATH | export json PATH | save PATH | open PATH
//   screenshot PATH | quit          (# starts a comment)
#pragma once
#include <string>
#include <vector>

#include "app/app_state.h"
#include "core/result.h"

namespace attnviz {

struct ScriptLine {
  int number = 0;      // in the file, for messages
  std::string verb;
  std::vector<std::string> args;  // words after the verb; TEXT-taking verbs get the rest as one
};

Result<std::vector<ScriptLine>> script_parse(std::string_view text);

struct ScriptStep {
  bool quit = false;
  std::string screenshot;  // main() saves the next frame here
  std::string error;       // "script line N: ..." — the run stops
};

// Applies one line to the app (the file actions report through the shell's functions).
ScriptStep script_apply(AppState& app, const ScriptLine& line);

}  // namespace attnviz
