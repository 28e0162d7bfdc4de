#!/usr/bin/env python3
"""Writes core/model/erf_coefficients.inc: the two polynomials of erf_portable (core/model/portable_math.cpp).

erf(x) = x * A(x^2) for |x| <= 1, and erf(x) = 1 - exp(-x^2) * B(1/x) for 1 < |x| < 4, each a least-squares
fit (relative error, Chebyshev nodes) to Python's double-precision math.erf / math.erfc, turned into
power-series coefficients in float32. It also prints the largest error of the float32 evaluation (Horner,
a multiplication then an addition, as the C++ does) over a dense grid, in ulps of the result.
usage: /usr/bin/python3 scripts/fits/make_erf_coefficients.py > core/model/erf_coefficients.inc
"""
import math
import sys

import numpy as np
from numpy.polynomial import chebyshev as cheb
from numpy.polynomial import polynomial as poly

A_DEGREE, B_DEGREE = 6, 8


def fit(f, lo, hi, degree):
    n = 2000
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    x = (t + 1) / 2 * (hi - lo) + lo
    y = np.array([f(v) for v in x])
    c = cheb.chebfit(t, y, degree, w=1 / np.abs(y))
    series = cheb.Chebyshev(c, domain=[lo, hi])
    return [np.float32(v) for v in series.convert(kind=poly.Polynomial, domain=[lo, hi], window=[lo, hi]).coef]


def horner32(coef, x):
    acc = np.float32(coef[-1])
    for c in coef[-2::-1]:
        acc = np.float32(np.float32(acc * x) + c)
    return acc


def worst_ulps(got, want):
    return float(np.max(np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32))))


a = fit(lambda u: math.erf(math.sqrt(u)) / math.sqrt(u) if u > 0 else 2 / math.sqrt(math.pi), 0.0, 1.0, A_DEGREE)
b = fit(lambda v: math.erfc(1 / v) * math.exp(1 / v ** 2), 0.25, 1.0, B_DEGREE)

xs = np.linspace(1e-6, 1, 100001).astype(np.float32)
a_err = worst_ulps((xs * horner32(a, (xs * xs).astype(np.float32))).astype(np.float32),
                   np.array([math.erf(float(v)) for v in xs]))
xs = np.linspace(1, 4, 100001).astype(np.float32)
q = horner32(b, (np.float32(1) / xs).astype(np.float32))
erfc = (np.exp(-(xs * xs).astype(np.float32).astype(np.float64)).astype(np.float32) * q).astype(np.float32)
b_err = worst_ulps((np.float32(1) - erfc).astype(np.float32), np.array([math.erf(float(v)) for v in xs]))
print(f"largest float32 error: {a_err:.2f} ulp on [0, 1], {b_err:.2f} ulp on [1, 4]", file=sys.stderr)

print("// Written by scripts/fits/make_erf_coefficients.py: power-series coefficients, lowest first.")
print(f"// erf(x) = x * A(x^2) on |x| <= 1 (float32 evaluation within {a_err:.1f} ulp of erf);")
print(f"// erfc(x) = exp(-x^2) * B(1/x) on 1 < |x| < 4 (erf within {b_err:.1f} ulp).")
print("constexpr float kErfSmall[] = {" + ", ".join(repr(float(c)) + "f" for c in a) + "};")
print("constexpr float kErfcLarge[] = {" + ", ".join(repr(float(c)) + "f" for c in b) + "};")
