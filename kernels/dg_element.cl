// Discontinuous-Galerkin style element kernel (weak form), one element per work-group of
// NP = 32 work-items (one per node):
//   f       = a * u[e]                        flux of a linear advection, per node
//   vol     = S^T f                           weak derivative: S is the NP x NP stiffness
//   rhs[e]  = jinv[e] * (Minv vol)            inverse mass matrix, scaled by the element's
//                                             inverse Jacobian
// S and Minv (row-major, shared by all elements) and the element's f and vol are staged in
// __local memory; two barriers separate the stages. No FMA contraction.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define NP 32
__attribute__((reqd_work_group_size(NP, 1, 1)))
kernel void dg_element(global const double *u, global const double *S,
                       global const double *Minv, global const double *jinv,
                       global double *rhs, double a)
{
    local double Sl[NP * NP];
    local double Ml[NP * NP];
    local double f[NP];
    local double vol[NP];
    uint i = get_local_id(0);
    size_t e = get_group_id(0);
    for (uint k = i; k < NP * NP; k += NP) {
        Sl[k] = S[k];
        Ml[k] = Minv[k];
    }
    f[i] = a * u[e * NP + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    double acc = 0.0;
    for (uint j = 0; j < NP; ++j)
        acc += Sl[j * NP + i] * f[j];
    vol[i] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    double r = 0.0;
    for (uint j = 0; j < NP; ++j)
        r += Ml[i * NP + j] * vol[j];
    rhs[e * NP + i] = jinv[e] * r;
}
