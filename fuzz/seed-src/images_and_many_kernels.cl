// Seed source for the poclbinary fuzz target: image, sampler, __local and struct
// arguments, an automatic local array and several kernels in one program.
typedef struct { int a; float b; } pair_t;
constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

kernel void read_image(read_only image2d_t img, global float4 *out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[p.y * get_global_size(0) + p.x] = read_imagef(img, kSampler, p);
}

kernel void with_sampler(read_only image2d_t img, sampler_t s, global float4 *out) {
  int2 p = (int2)(get_global_id(0), 0);
  out[p.x] = read_imagef(img, s, p);
}

kernel void locals(global int *out, local int *scratch, pair_t pr) {
  local int tile[32];
  size_t l = get_local_id(0);
  tile[l % 32] = pr.a;
  scratch[l] = (int)pr.b;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[(l + 1) % 32] + scratch[0];
}

__attribute__((reqd_work_group_size(4, 2, 1)))
kernel void fixed(global int *out) { out[get_global_id(1) * 4 + get_global_id(0)] = 1; }
