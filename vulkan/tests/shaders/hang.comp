#version 450
// Each invocation adds 16 to words[1] words[0] times with atomics (which no optimiser may
// merge or drop). lavapipe cuts every shader off after 65535 loop iterations in total
// (gallivm's loop limiter), so a hang needs long iterations, not many: with words[0] =
// 60000 and 4096 workgroups of 64 it runs for hours.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint words[]; } data;
void main() {
    for (uint j = 0u; j < data.words[0]; j++) {
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
        atomicAdd(data.words[1], 1u); atomicAdd(data.words[1], 1u);
    }
}
