#include "analysis/qk_projection.h"

#include <cmath>

#include <Eigen/Eigenvalues>

namespace attnviz {

Result<QKProjection> qk_projection(const HeadTrace& head) {
  if (head.q.rows() == 0 || head.k.rows() == 0 || head.q.cols() != head.k.cols())
    return make_error("the head has no query and key vectors (an attention file holds only the weights)");
  if (head.score == ScoreKind::additive)
    return make_error("an additive head scores v·tanh(W_q q + W_k k), not a product of q and k: there is no shared space to draw");
  const Eigen::Index Tq = head.q.rows(), Tk = head.k.rows(), HS = head.q.cols();
  Eigen::MatrixXd q = head.q.cast<double>(), k = head.k.cast<double>();
  // Keys moved onto the queries' mean, then lengths matched: neither changes a softmax row.
  const Eigen::RowVectorXd q_mean = q.colwise().mean(), k_mean = k.colwise().mean();
  k.rowwise() += q_mean - k_mean;
  const double q_len = q.rowwise().norm().mean(), k_len = k.rowwise().norm().mean();
  double s = 1;
  if (q_len > 0 && k_len > 0) s = std::sqrt(k_len / q_len);
  q *= s;
  k /= s;
  Eigen::MatrixXd all(Tq + Tk, HS);
  all << q, k;
  const Eigen::RowVectorXd centre = all.colwise().mean();
  all.rowwise() -= centre;
  const Eigen::MatrixXd cov = all.transpose() * all / static_cast<double>(all.rows());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  const Eigen::VectorXd values = eig.eigenvalues();  // ascending
  const double total = values.sum();
  QKProjection out;
  out.key_scale = static_cast<float>(s);
  Eigen::MatrixXd axes(HS, 2);
  for (int a = 0; a < 2; ++a) {
    const Eigen::Index i = HS - 1 - std::min<Eigen::Index>(a, HS - 1);
    Eigen::VectorXd axis = eig.eigenvectors().col(i);
    // A fixed sign (the largest component positive), so the picture does not flip between runs.
    Eigen::Index big = 0;
    axis.cwiseAbs().maxCoeff(&big);
    if (axis(big) < 0) axis = -axis;
    axes.col(a) = HS > a ? axis : Eigen::VectorXd::Zero(HS);
    out.explained[a] = total > 0 && HS > a ? static_cast<float>(values(i) / total) : 0.0f;
  }
  const Eigen::MatrixXd coords = all * axes;
  out.queries = coords.topRows(Tq).cast<float>();
  out.keys = coords.bottomRows(Tk).cast<float>();
  return out;
}

}  // namespace attnviz
