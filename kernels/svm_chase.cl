// SVM: nodes hold absolute SVM pointers to other nodes; each work-item follows its
// chain for `steps` hops and sums the values. Both pointers come from clSVMAlloc.
typedef struct node {
    global const struct node *next;
    int value;
    int pad;
} node_t;

kernel void svm_chase(global const node_t *nodes, global int *out, int steps)
{
    size_t i = get_global_id(0);
    global const node_t *p = &nodes[i];
    int sum = 0;
    for (int s = 0; s < steps && p; ++s) {
        sum = sum * 3 + p->value;
        p = p->next;
    }
    out[i] = sum;
}
