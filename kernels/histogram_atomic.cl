// Histogram with global atomics: bins[0..nbins) count values by (v % nbins);
// bins[nbins] accumulates the low bytes, bins[nbins+1] keeps the maximum.
kernel void histogram_atomic(global const uint *data, global int *bins, uint nbins)
{
    uint v = data[get_global_id(0)];
    atomic_inc(&bins[v % nbins]);
    atomic_add(&bins[nbins], (int)(v & 0xff));
    atomic_max(&bins[nbins + 1], (int)(v & 0xffff));
}
