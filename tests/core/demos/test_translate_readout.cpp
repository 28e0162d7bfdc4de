// What the Translation view reads (core/demos/translate_readout.h), on the shipped demo:translate:
// the greedy translation, the rows read back by teacher forcing, the steps' probabilities, the
// per-head alignment on this sentence, and what switching a cross-attention head off does.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "demos/translate_file.h"
#include "demos/translate_readout.h"

using namespace attnviz;

namespace {

TranslateModel shipped(const std::string& variant = "") {
  const std::string dir = std::string(ATTNVIZ_ASSETS) + "/demo_translate" + (variant.empty() ? "" : "/" + variant);
  auto m = translate_load(dir + "/model.safetensors");
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

constexpr const char* kParkSentence = "the big cat chased the small dog in the park .";

}  // namespace

TEST_CASE("translate readout: the greedy translation, its rows read back, and each step's probabilities") {
  const TranslateModel m = shipped();
  auto r = translate_readout(m, kParkSentence);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->exact);
  CHECK(r->finished);
  CHECK(r->pair.korean_text() == "큰 고양이가 공원에서 작은 개를 쫓았다.");
  CHECK(r->output == r->pair.target);
  CHECK(r->rows() == static_cast<int>(r->output.size()) + 1);
  CHECK(translate_row_token(m, *r, r->rows() - 1) == "[EOS]");
  // Each row's likeliest token is the one greedy decoding chose there, and the last row's is [EOS].
  for (int row = 0; row < r->rows(); ++row) {
    CAPTURE(row);
    REQUIRE(r->top[static_cast<size_t>(row)].size() == 3);
    const TranslateCandidate& best = r->top[static_cast<size_t>(row)][0];
    CHECK(best.token == (row + 1 < r->rows() ? r->output_ids[static_cast<size_t>(row)] : kTranslateEos));
    CHECK(best.probability >= r->top[static_cast<size_t>(row)][1].probability);
    CHECK(best.probability > 0.5f);
  }
  // The rows are translate_forward's on [BOS] + the output, cell for cell.
  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), r->output_ids.begin(), r->output_ids.end());
  auto f = translate_forward(m, r->source_ids, input);
  REQUIRE(f.ok());
  const Mat& a = r->forward.decoder[0].cross.attn.heads[0].weights_kept;
  CHECK(a.rows() == r->rows());
  CHECK(a.cols() == static_cast<Eigen::Index>(r->pair.source.size()));
  CHECK((a - f->decoder[0].cross.attn.heads[0].weights_kept).cwiseAbs().maxCoeff() == 0.0f);
  // The right Korean is likely: the product of its tokens' probabilities.
  CHECK(r->gold_logprob < 0.0f);
  CHECK(r->gold_logprob > std::log(0.5f));
  // A head aligns the content tokens of this sentence: adjective, noun, place, adjective, noun, verb.
  CHECK(r->content_tokens == 6);
  REQUIRE(r->head_aligned.size() == 4);
  REQUIRE(r->best_head >= 0);
  CHECK(r->head_aligned[static_cast<size_t>(r->best_head)] == 1.0f);
}

TEST_CASE("translate readout: the particles are drawn joined to their word") {
  CHECK(translate_joined_token("가"));
  CHECK(translate_joined_token("를"));
  CHECK(translate_joined_token("에서"));
  CHECK(translate_joined_token("."));
  CHECK_FALSE(translate_joined_token("고양이"));
  CHECK_FALSE(translate_joined_token("그리고"));
  CHECK(translate_particle_token("에서"));
  CHECK_FALSE(translate_particle_token("."));
  const TranslateModel m = shipped();
  auto r = translate_readout(m, kParkSentence);
  REQUIRE(r.ok());
  CHECK(translate_written(r->output) == r->pair.korean_text());
  CHECK(translate_written({}) == "");
}

TEST_CASE("translate readout: switching the aligning head off changes the translation") {
  const TranslateModel m = shipped();
  const std::string sentence = "the small teacher bought the red book at school and the dog saw the white cat .";
  auto full = translate_readout(m, sentence);
  REQUIRE_MESSAGE(full.ok(), full.error());
  CHECK(full->exact);
  auto effects = translate_head_effects(m, *full);
  REQUIRE_MESSAGE(effects.ok(), effects.error());
  REQUIRE(effects->size() == 4);
  const TranslateHeadEffect& best = (*effects)[static_cast<size_t>(full->best_head)];
  MESSAGE("best head H" << full->best_head + 1 << ": drop " << best.logprob_drop << ", without it: " << best.output.size()
                        << " tokens, changed " << best.changed);
  CHECK(best.changed);
  CHECK_FALSE(best.exact);
  // The aligning head costs the right Korean more than any other head does.
  for (const TranslateHeadEffect& e : *effects) CHECK(e.logprob_drop <= best.logprob_drop);
  // The same through the readout with the head off: its translation is the effect's.
  Ablation off;
  ablation_set(off, best.head, true);
  auto without = translate_readout(m, sentence, off);
  REQUIRE(without.ok());
  CHECK(without->output == best.output);
  CHECK(without->forward.decoder[0].cross.attn.heads[static_cast<size_t>(best.head.head)].ablated);
  CHECK(without->gold_logprob == doctest::Approx(full->gold_logprob - best.logprob_drop).epsilon(1e-4));
  // A readout with the head off reports the other heads' effects only.
  auto rest = translate_head_effects(m, *without);
  REQUIRE(rest.ok());
  CHECK(rest->size() == 3);
}

TEST_CASE("translate readout: refusals name what is wrong, and the bottleneck has no heads to align") {
  const TranslateModel m = shipped();
  auto unknown = translate_readout(m, "the purple cat chased the dog .");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().find("purple") != std::string::npos);
  Ablation bad;
  ablation_set(bad, {0, 7}, true);
  auto head = translate_readout(m, kParkSentence, bad);
  REQUIRE_FALSE(head.ok());
  CHECK(head.error().find("L1 H8") != std::string::npos);

  const TranslateModel b = shipped("bottleneck");
  auto r = translate_readout(b, kParkSentence);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->head_aligned.empty());
  CHECK(r->best_head == -1);
  CHECK(r->forward.decoder.empty());
  CHECK(r->top.size() == static_cast<size_t>(r->rows()));
  auto effects = translate_head_effects(b, *r);
  REQUIRE(effects.ok());
  CHECK(effects->empty());
  Ablation one;
  ablation_set(one, {0, 0}, true);
  auto refused = translate_readout(b, kParkSentence, one);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("no cross-attention") != std::string::npos);
}
