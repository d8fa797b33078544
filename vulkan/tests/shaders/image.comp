#version 450
// Copies every texel of the 2D array image at binding 1, level-major then layer, row,
// column, into binding 0 with texelFetch, and into binding 2 with textureLod at the texel
// centre shifted by one whole period (nearest filtering, repeat addressing: the same texel).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Fetched { uint words[]; } fetched;
layout(set = 0, binding = 1) uniform usampler2DArray img;
layout(set = 0, binding = 2) buffer Sampled { uint words[]; } sampled;
void main() {
    int levels = textureQueryLevels(img);
    uint k = 0u;
    for (int l = 0; l < levels; l++) {
        ivec3 size = textureSize(img, l);
        for (int layer = 0; layer < size.z; layer++) {
            for (int y = 0; y < size.y; y++) {
                for (int x = 0; x < size.x; x++) {
                    uvec4 t = texelFetch(img, ivec3(x, y, layer), l);
                    vec2 centre = (vec2(x, y) + 0.5) / vec2(size.xy) + 1.0;
                    uvec4 s = textureLod(img, vec3(centre, float(layer)), float(l));
                    for (int c = 0; c < 4; c++) {
                        fetched.words[k] = t[c];
                        sampled.words[k] = s[c];
                        k++;
                    }
                }
            }
        }
    }
}
