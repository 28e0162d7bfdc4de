// The string table. Order follows the Str enum; a static_assert keeps the two in step.
#include "app/strings.h"

#include <iterator>

namespace attnviz {

namespace {

struct Entry {
  const char* en;
  const char* ko;
};

constexpr Entry kStrings[] = {
    {"attnviz — multi-head attention, head by head", "attnviz — 멀티 헤드 어텐션, 헤드별로 보기"},
    {"View", "보기"},
    {"Language", "언어"},
    {"Presets", "예문"},
    {"Sentence", "문장"},
    {"Model & masks", "모델과 마스킹"},
    {"Heads", "헤드"},
    {"Sentence", "문장"},
    {"Source sentence (keys, values)", "소스 문장 (키, 밸류)"},
    {"Cross-attention", "크로스 어텐션"},
    {"Tokens", "토큰"},
    {"out of vocabulary", "어휘 밖 단어"},
    {"Model size", "모델 크기"},
    {"d_model", "d_model (모델 차원)"},
    {"Heads", "헤드 수"},
    {"Layers", "레이어 수"},
    {"FFN width", "FFN 너비"},
    {"Seed", "시드"},
    {"Re-roll", "다시 뽑기"},
    {"LayerNorm", "레이어 정규화"},
    {"post (paper, BERT)", "post (논문, BERT)"},
    {"pre (GPT, ViT)", "pre (GPT, ViT)"},
    {"Positions", "위치 인코딩"},
    {"sinusoidal", "사인파"},
    {"learned", "학습"},
    {"none", "없음"},
    {"Activation", "활성화 함수"},
    {"Scoring", "스코어 함수"},
    {"scaled dot-product", "스케일드 닷-프로덕트"},
    {"dot-product (no scaling)", "닷-프로덕트 (스케일링 없음)"},
    {"general (Luong)", "general (루옹)"},
    {"additive (Bahdanau)", "additive (바다나우)"},
    {"Divide by √d_k", "√d_k로 나누기"},
    {"Temperature τ", "온도 τ"},
    {"Masks", "마스킹"},
    {"Causal (hide the future)", "인과 마스크 (미래 가리기)"},
    {"Padding", "패딩 마스크"},
    {"pad to", "패딩 길이"},
    {"Local window", "로컬 윈도우"},
    {"radius r", "반경 r"},
    {"Strided", "스트라이드"},
    {"stride s", "간격 s"},
    {"Custom cells", "사용자 지정 셀"},
    {"Ctrl+click a heatmap cell to hide or show that key", "히트맵 셀을 Ctrl+클릭하면 그 키를 가리거나 보입니다"},
    {"Clear", "지우기"},
    {"Layer", "레이어"},
    {"Head", "헤드"},
    {"Colours", "색상"},
    {"Numbers in cells", "셀에 숫자 표시"},
    {"Zoom", "확대"},
    {"All heads", "모든 헤드"},
    {"query", "쿼리"},
    {"key", "키"},
    {"weight", "가중치"},
    {"raw score q·k", "원점수 q·k"},
    {"scaled score", "스케일된 점수"},
    {"computing…", "계산 중…"},
    {"(the previous result is still shown)", "(이전 결과를 계속 표시합니다)"},
    {"hidden by the mask", "마스크로 가려짐"},
    {"Click a query token (row label) to highlight its row in every head", "쿼리 토큰(행 이름)을 누르면 모든 헤드에서 그 행이 강조됩니다"},
    // shell
    {"File", "파일"},
    {"Open session…", "세션 열기…"},
    {"Save session…", "세션 저장…"},
    {"Export PNG of the heads…", "헤드 PNG로 내보내기…"},
    {"Export CSV of the head…", "헤드 CSV로 내보내기…"},
    {"Export JSON of the trace…", "트레이스 JSON으로 내보내기…"},
    {"Quit", "끝내기"},
    {"Presentation mode", "발표 모드"},
    {"High-contrast colours", "고대비 색상"},
    {"Heads", "헤드"},
    {"Model view", "모델 전체"},
    {"Lines", "연결선"},
    {"Compare", "비교"},
    {"Step by step", "단계별 계산"},
    {"Statistics", "통계"},
    {"Path", "경로"},
    {"OK", "확인"},
    {"Cancel", "취소"},
    {"Scale", "배율"},
    {"Saved", "저장함"},
    {"Opened", "열었음"},
    {"Full screen", "전체 화면"},
    // @model_view
    {"layers: %d · heads: %d · tokens: %d × %d", "레이어 %d개 · 헤드 %d개 · 토큰 %d × %d"},
    {"Click a map to open that head in the Heads view", "맵을 누르면 그 헤드를 헤드 보기에서 엽니다"},
    {"Click to open in the Heads view", "누르면 헤드 보기에서 엽니다"},
    {"entropy", "엔트로피"},
    {"uniform", "균등"},
    {"max weight", "최대 가중치"},
    {"mean distance", "평균 거리"},
    {"tokens", "토큰"},
    {"first-token share", "첫 토큰 비중"},
    {"punctuation share", "구두점 비중"},
    {"current head", "현재 헤드"},
    // @lines
    {"Queries", "쿼리"},
    {"Keys", "키"},
    {"Click a colour to switch a head on/off, double-click to show only that head",
     "색을 누르면 헤드를 켜고 끕니다. 두 번 누르면 그 헤드만 보입니다"},
    {"All on", "모두 켜기"},
    {"All off", "모두 끄기"},
    {"Hover a token to see only its lines, click a query to keep it; weights below 0.01 are not drawn",
     "토큰에 마우스를 올리면 그 선만 보이고, 쿼리를 누르면 고정됩니다. 0.01 미만의 가중치는 그리지 않습니다"},
    {"Every head is switched off: click a colour above to show one", "모든 헤드가 꺼져 있습니다. 위의 색을 눌러 켜세요"},
    {"mean weight over the shown heads", "켜진 헤드의 평균 가중치"},
    {"Strongest keys", "가장 강한 키"},
    {"on", "켜짐"},
    {"off", "꺼짐"},
    {"Clear query", "쿼리 선택 해제"},
    {"attention into this key", "이 키로 오는 어텐션"},
    {"the %d strongest of %d lines", "가장 강한 선 %d개 (전체 %d개)"},
    // @compare
    {"Compare", "비교"},
    {"Sentence A vs sentence B (tired vs wide)", "문장 A vs 문장 B (tired vs wide)"},
    {"1 head vs N heads at the same d_model", "같은 d_model에서 헤드 1개 vs 헤드 N개"},
    {"Masked vs unmasked", "마스킹 적용 vs 마스킹 없음"},
    {"Scaled vs unscaled (÷√d_k)", "스케일링 적용 vs 미적용 (÷√d_k)"},
    {"Same model, same weights, one word changed: which heads move the attention of \"it\"?",
     "같은 모델, 같은 가중치에서 단어 하나만 바꿉니다. 어떤 헤드에서 \"it\"의 어텐션이 옮겨 갈까요?"},
    {"The same d_model split into N heads (d_k = d_model / N) or kept as one head (d_k = d_model): the average of "
     "the N heads against the single head.",
     "같은 d_model을 헤드 N개(d_k = d_model / N)로 나누거나 헤드 하나(d_k = d_model)로 둡니다. 헤드 N개의 평균을 "
     "단일 헤드와 비교합니다."},
    {"A masked key gets weight 0; the softmax hands its share to the keys that stay visible.",
     "마스킹된 키는 가중치가 0이 되고, 소프트맥스가 그 몫을 보이는 키들에 나누어 줍니다."},
    {"Without ÷√d_k the scores grow with d_k and the softmax gets sharper: the weight piles onto fewer keys.",
     "√d_k로 나누지 않으면 점수가 d_k와 함께 커져 소프트맥스가 뾰족해집니다. 가중치가 더 적은 키에 몰립니다."},
    {"Sentence B", "문장 B"},
    {"tired ←→ wide", "tired ←→ wide"},
    {"Rewrite sentence B from sentence A with tired swapped for wide (or wide for tired)",
     "문장 A에서 tired를 wide로(또는 wide를 tired로) 바꾸어 문장 B를 다시 씁니다"},
    {"sentence A", "문장 A"},
    {"sentence B", "문장 B"},
    {"average of %d heads", "헤드 %d개의 평균"},
    {"1 head (d_k = %d)", "헤드 1개 (d_k = %d)"},
    {"masks as set", "설정한 마스킹"},
    {"no mask", "마스킹 없음"},
    {"causal mask", "인과 마스크"},
    {"B higher", "B가 더 큼"},
    {"A higher", "A가 더 큼"},
    {"no change", "변화 없음"},
    {"B could not be computed:", "B를 계산하지 못했습니다:"},
    {"A has %d tokens and B has %d: a difference map needs the same number of tokens.",
     "A는 토큰 %d개, B는 %d개입니다. 차이 지도는 토큰 수가 같아야 합니다."},
    {"Difference per head (click one to show it)", "헤드별 차이 (눌러서 보기)"},
    {"A's %d heads, averaged in column A", "A의 헤드 %d개 (A 열에서 평균)"},
    {"max |A – B|", "최대 |A – B|"},
    // @steps
    {"◀ Back", "◀ 이전"},
    {"Next ▶", "다음 ▶"},
    {"Space: next step · Shift+Space: back", "스페이스: 다음 단계 · Shift+스페이스: 이전 단계"},
    {"(default)", "(기본값)"},
    {"Input X", "입력 X"},
    {"Head split", "헤드 분할"},
    {"Q, K, V", "Q, K, V"},
    {"QK^T", "QK^T"},
    {"÷ √d_k", "÷ √d_k"},
    {"+ mask", "+ 마스킹"},
    {"softmax", "소프트맥스"},
    {"× V", "× V"},
    {"Concat", "Concat (연결)"},
    {"W_O", "W_O"},
    {"Input X — the tokens as rows of numbers", "입력 X — 숫자 행이 된 토큰들"},
    {"Head split — one projection, many heads", "헤드 분할 — 하나의 투영, 여러 개의 헤드"},
    {"Q, K, V — what each token asks for, offers and carries", "Q, K, V — 각 토큰이 찾는 것, 내세우는 것, 전달하는 것"},
    {"QK^T — how well does each key match the query?", "QK^T — 각 키는 쿼리와 얼마나 잘 맞을까?"},
    {"÷ √d_k — keep the scores in a gentle range", "÷ √d_k — 점수를 알맞은 범위로 줄이기"},
    {"+ mask — which keys may this query see?", "+ 마스킹 — 이 쿼리는 어떤 키를 볼 수 있을까?"},
    {"softmax — scores become weights that sum to 1", "소프트맥스 — 점수가 합이 1인 가중치로"},
    {"× V — mix the values by those weights", "× V — 가중치대로 밸류를 섞기"},
    {"Concat — every head's output side by side", "Concat — 모든 헤드의 출력을 나란히 잇기"},
    {"W_O — blend the heads into one output", "W_O — 헤드들을 하나의 출력으로 섞기"},
    {"Each token enters attention as one row of C numbers: its embedding plus its position, or the "
     "previous layer's output. Stacked together, the rows form the matrix X.",
     "각 토큰은 C개의 숫자로 된 한 행으로 어텐션에 들어옵니다. 임베딩에 위치 정보를 더한 값이거나, "
     "이전 레이어의 출력입니다. 이 행들을 쌓은 것이 행렬 X입니다."},
    {"X is multiplied by W_Q, W_K and W_V; the C columns of each result are then cut into NH equal blocks, "
     "so every head works in its own smaller subspace, all in parallel.",
     "X에 W_Q, W_K, W_V를 곱한 뒤, 각 결과의 C개 열을 똑같은 크기의 블록 NH개로 자릅니다. "
     "각 헤드는 자기만의 작은 부분 공간에서 동시에 계산합니다."},
    {"In this head every token now has a query (what it is looking for), a key (what it offers to be "
     "found by) and a value (the information it hands over when chosen).",
     "이 헤드에서 각 토큰은 쿼리(무엇을 찾는지), 키(무엇으로 찾아지는지), "
     "밸류(선택되었을 때 실제로 건네주는 정보)를 갖게 됩니다."},
    {"The query row q_i is compared with every key by a dot product: the larger q_i · k_j, the better "
     "key j fits what token i is looking for.",
     "쿼리 행 q_i를 모든 키와 내적으로 비교합니다. q_i · k_j가 클수록 키 j가 토큰 i가 찾는 것과 "
     "잘 맞는다는 뜻입니다."},
    {"Dot products grow with the head size d_k, and very large scores would make softmax pick a single key; "
     "dividing by √d_k keeps their spread close to 1.",
     "내적 값은 헤드 크기 d_k가 클수록 커지고, 점수가 너무 크면 소프트맥스가 키 하나에만 쏠립니다. "
     "√d_k로 나누면 점수의 분산이 1 가까이로 유지됩니다."},
    {"A mask adds -∞ to the keys this query must not see (the future, padding, tokens too far away); "
     "after softmax their weight is exactly 0.",
     "마스크는 이 쿼리가 보면 안 되는 키(미래의 토큰, 패딩, 너무 멀리 있는 토큰)에 -∞를 더합니다. "
     "소프트맥스를 거치면 그 가중치는 정확히 0이 됩니다."},
    {"Softmax turns the row of scores into attention weights: all positive, larger scores get a larger "
     "share, and together they add up to 1.",
     "소프트맥스는 점수 행을 어텐션 가중치로 바꿉니다. 모두 양수이고, 점수가 클수록 더 큰 몫을 받으며, "
     "모두 더하면 1입니다."},
    {"The head's output for token i is a weighted average of the value vectors: keys with more weight "
     "contribute more of their value.",
     "토큰 i에 대한 헤드의 출력은 밸류 벡터들의 가중 평균입니다. 가중치가 큰 키일수록 자기 밸류를 "
     "더 많이 보탭니다."},
    {"Every head ran the same steps with its own weights. Their (T, HS) outputs are placed side by side, "
     "which gives back a (T, C) matrix.",
     "모든 헤드가 각자의 가중치로 같은 과정을 거쳤습니다. 각 헤드의 (T, HS) 출력을 나란히 이어 붙이면 "
     "다시 (T, C) 행렬이 됩니다."},
    {"One last linear layer, W_O, mixes what the heads found into a single output per token, the same "
     "size as the input, ready to be added back in the residual connection.",
     "마지막 선형 변환 W_O가 헤드들이 찾은 것을 섞어 토큰마다 하나의 출력을 만듭니다. 크기가 입력과 "
     "같아서 잔차 연결로 바로 더해집니다."},
    {"Shape", "모양"},
    {"token", "토큰"},
    {"first %d of %d dims", "처음 %d개 차원 (전체 %d)"},
    {"Layer %d reads the output of layer %d.", "레이어 %d의 입력은 레이어 %d의 출력입니다."},
    {"Pre-norm: attention reads LN1(x), the normalised layer input.", "pre-norm: 어텐션은 정규화된 레이어 입력 LN1(x)를 읽습니다."},
    {"Cross-attention: the keys and values come from the source sentence (Tk = %d).",
     "크로스 어텐션: 키와 밸류는 소스 문장에서 옵니다 (Tk = %d)."},
    {"%d → %d heads × %d", "%d → 헤드 %d개 × %d"},
    {"Head %d takes columns %d–%d of Q, K and V.", "헤드 %d는 Q, K, V의 %d–%d번 열을 맡습니다."},
    {"The query's whole row of X W_Q (C = %d numbers), split into the heads:",
     "쿼리의 X W_Q 행 전체 (C = %d개 숫자)를 헤드별로 나눈 모습:"},
    {"Click a block to choose that head.", "블록을 누르면 그 헤드를 고릅니다."},
    {"e.g.", "예:"},
    {"Temperature τ = %.2f: the scores are divided by τ as well.", "온도 τ = %.2f: 점수를 τ로 한 번 더 나눕니다."},
    {"Scoring: dot-product, score = q · k. No √d_k scaling is applied.",
     "스코어 함수: 닷-프로덕트, 점수 = q · k. √d_k 스케일링은 하지 않습니다."},
    {"Scoring: general (Luong), score = q W_a k^T. No √d_k scaling is applied.",
     "스코어 함수: general (루옹), 점수 = q W_a k^T. √d_k 스케일링은 하지 않습니다."},
    {"Scoring: additive (Bahdanau), score = v^T tanh(W_q q + W_k k). No √d_k scaling is applied.",
     "스코어 함수: additive (바다나우), 점수 = v^T tanh(W_q q + W_k k). √d_k 스케일링은 하지 않습니다."},
    {"τ = 1 and no √d_k: the scores pass through unchanged.", "τ = 1이고 √d_k도 없으므로 점수가 그대로 통과합니다."},
    {"raw", "원점수"},
    {"scaled", "스케일 후"},
    {"mask", "마스크"},
    {"No mask is active: every key stays visible (+0).", "마스크가 없습니다. 모든 키가 보입니다 (+0)."},
    {"Hidden from this query: %d of %d keys.", "이 쿼리에게 가려진 키: %d개 / 전체 %d개."},
    {"causal — after the query", "인과 — 쿼리보다 뒤"},
    {"padding — a [PAD] token", "패딩 — [PAD] 토큰"},
    {"window — more than %d away", "윈도우 — %d칸보다 멂"},
    {"strided — off the stride %d", "스트라이드 — 간격 %d에 안 맞음"},
    {"custom — hidden by hand", "사용자 지정 — 직접 가림"},
    {"mask changed — recomputing", "마스크 바뀜 — 다시 계산 중"},
    {"visible", "보임"},
    {"Every key is hidden from this query, so all its weights are 0.", "이 쿼리에게는 모든 키가 가려져 가중치가 모두 0입니다."},
    {"Largest terms w_ij · v_j", "가장 큰 항 w_ij · v_j"},
    {"… and %d more keys", "… 외 키 %d개"},
    {"Head %d fills columns %d–%d of the concat.", "헤드 %d가 concat의 %d–%d번 열을 채웁니다."},
    {"Next in the layer: residual connection + LayerNorm, then the feed-forward network.",
     "레이어의 다음 과정: 잔차 연결 + 레이어 정규화, 그리고 피드 포워드 신경망."},
    {"Row of the query \"%s\"", "쿼리 \"%s\"의 행"},
    // @stats
    {"Entropy", "엔트로피"},
    {"How spread out each query's attention is (–∑ w ln w, in nats), averaged over the queries.\n"
     "0: all the weight on one key.  ln T: spread evenly over all T keys.",
     "각 쿼리의 어텐션이 얼마나 퍼져 있는지(–∑ w ln w, 단위 nat)를 쿼리들에 대해 평균한 값.\n"
     "0: 키 하나에 모든 가중치.  ln T: T개의 키에 고르게 퍼짐."},
    {"Max\nweight", "최대\n가중치"},
    {"The largest attention weight in each query's row, averaged over the queries.\n"
     "Near 1: the head picks a single key for each query.",
     "각 쿼리 행에서 가장 큰 어텐션 가중치를 쿼리들에 대해 평균한 값.\n"
     "1에 가까우면 헤드가 쿼리마다 키 하나만 고릅니다."},
    {"Mean\ndistance", "평균\n거리"},
    {"How far away the attended keys are: ∑ w·|i – j| in tokens, averaged over the queries.\n"
     "Small: a local head that looks at neighbours.  Large: a long-range head.",
     "어텐션하는 키가 얼마나 떨어져 있는지: ∑ w·|i – j|(토큰 단위)를 쿼리들에 대해 평균한 값.\n"
     "작으면 이웃을 보는 로컬 헤드, 크면 멀리 보는 헤드."},
    {"First\ntoken", "첫 토큰"},
    {"The share of the weight on the first token, averaged over the queries.\n"
     "High: the head parks its attention there (an \"attention sink\").",
     "첫 토큰에 놓인 가중치의 비율을 쿼리들에 대해 평균한 값.\n"
     "높으면 헤드가 어텐션을 그곳에 맡겨 둡니다(\"어텐션 싱크\")."},
    {"Punctu-\nation", "구두점"},
    {"The share of the weight on punctuation keys (. , ! ? …), averaged over the queries.",
     "구두점 키(. , ! ? …)에 놓인 가중치의 비율을 쿼리들에 대해 평균한 값."},
    {"Top keys", "상위 키"},
    {"The keys the query \"%s\" attends to most in each head, with their weights.",
     "각 헤드에서 쿼리 \"%s\"가 가장 많이 어텐션하는 키와 그 가중치."},
    {"The keys that receive the most attention in each head: their weight summed over all queries,\n"
     "divided by the number of queries.",
     "각 헤드에서 어텐션을 가장 많이 받는 키: 모든 쿼리의 가중치 합을 쿼리 수로 나눈 값."},
    {"The layer, counted from the input.", "레이어 번호 (입력 쪽부터)."},
    {"The head within its layer.", "레이어 안의 헤드 번호."},
    {"How this head turns a query and a key into a score.", "이 헤드가 쿼리와 키로 점수를 내는 방법."},
    {"Top keys for", "상위 키 기준"},
    {"all queries", "모든 쿼리"},
    {"Click a row to choose that head · double-click to open it in Heads · click a column header to sort",
     "행을 누르면 그 헤드를 선택 · 두 번 누르면 헤드 보기에서 열기 · 열 머리글을 누르면 정렬"},
    {"%d layers × %d heads · %d queries × %d keys", "레이어 %d개 × 헤드 %d개 · 쿼리 %d개 × 키 %d개"},
    {"scaled dot", "스케일드 닷"},
    {"dot (no ÷√d_k)", "닷 (÷√d_k 없음)"},
    {"general", "general"},
    {"additive", "additive"},
    // @attention-only layers
    {"0: no feed-forward block (attention only)", "0: 피드포워드 없음 (어텐션만)"},
    {"Next in the layer: the residual connection (+ LayerNorm in post-norm). This model has no feed-forward "
     "block, so that is the layer's output.",
     "레이어의 다음 과정: 잔차 연결 (post-norm이면 + 레이어 정규화). 이 모델에는 피드 포워드 신경망이 없으므로 "
     "그것이 레이어의 출력입니다."},
};
static_assert(std::size(kStrings) == static_cast<size_t>(Str::count_), "one entry per Str value");

}  // namespace

const char* tr(Lang lang, Str id) {
  const Entry& e = kStrings[static_cast<size_t>(id)];
  return lang == Lang::ko ? e.ko : e.en;
}

}  // namespace attnviz
