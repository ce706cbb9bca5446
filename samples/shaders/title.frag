// A lower third for an editor: a bar that slides in, transparent around it. Export it with
// its alpha: glreader-export --shader samples/shaders/title.frag --alpha -o title.mov
float rounded_box(vec2 p, vec2 half_size, float r)
{
    vec2 d = abs(p) - half_size + r;
    return length(max(d, 0.0)) + min(max(d.x, d.y), 0.0) - r;
}

void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.y;
    float slide = smoothstep(0.0, 0.8, iTime);
    vec2 centre = vec2(mix(-0.6, 0.55, slide), 0.18);
    float d = rounded_box(uv - centre, vec2(0.45, 0.07), 0.03);
    float inside = 1.0 - smoothstep(0.0, 2.0 / iResolution.y, d);
    vec3 colour = mix(vec3(0.05, 0.35, 0.8), vec3(0.1, 0.6, 0.95), uv.x / 1.8);
    fragColor = vec4(colour, 0.85 * inside);
}
