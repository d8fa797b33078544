#version 450
// Adds one to words[1] words[0]² times in two nested loops: lavapipe stops every loop of a
// shader after 65535 iterations in total, so with words[0] = 1000 it adds 65535, not 10⁶.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint words[]; } data;
void main() {
    for (uint j = 0u; j < data.words[0]; j++) {
        for (uint i = 0u; i < data.words[0]; i++) {
            atomicAdd(data.words[1], 1u);
        }
    }
}
