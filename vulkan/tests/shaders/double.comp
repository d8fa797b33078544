#version 450
// Doubles every word of binding 0 in place; writes its invocation id to binding 1.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Data { uint words[]; } data;
layout(set = 0, binding = 1) buffer Ids { uint ids[]; } ids;
void main() {
    uint i = gl_GlobalInvocationID.x;
    data.words[i] = data.words[i] * 2u;
    ids.ids[i] = i;
}
