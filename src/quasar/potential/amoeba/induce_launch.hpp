#pragma once
// The interface between induce_gpu.cpp and the kernels of induce_kernels.cu (no CUDA headers): one
// launcher per kernel, on the system's device data (InduceArgs, induce_forms.hpp). Vectors are 3 n
// doubles, atom-major; every launch goes on the default stream.
#include "quasar/potential/amoeba/induce_forms.hpp"

namespace quasar::amoeba {

// field_d, field_p = the real-space direct fields of the lab moments M (13 per atom).
void launch_direct_fields(const InduceArgs& a, const double* M, double* field_d, double* field_p);
// field = the real-space mutual field of the dipoles u.
void launch_mutual_field(const InduceArgs& a, const double* u, double* field);
// z = Tinker's preconditioner applied to rs.
void launch_precondition(const InduceArgs& a, const double* rs, double* z);
// rs = T u where alpha > 0, else 0 (the residual of the direct dipoles).
void launch_start_residual(int n, const double* alpha, const double* Tu, double* rs);
// Ap = p / alpha - Tp where alpha > 0, else 0.
void launch_apply_operator(int n, const double* alpha, const double* p, const double* Tp, double* Ap);
// x += step p, rs -= step Ap.
void launch_step(int n, double step, const double* p, const double* Ap, double* x, double* rs);
// p = z + beta p.
void launch_direction(int n, double beta, const double* z, double* p);
// out[0] = sum a b over 3 n values (one block, a fixed order).
void launch_dot(int n, const double* a, const double* b, double* out);
// x = alpha f (the direct dipoles).
void launch_scale_by_alpha(int n, const double* alpha, const double* f, double* x);

}  // namespace quasar::amoeba
