// A plasma, as pasted from Shadertoy: glreader-export --shader samples/shaders/plasma.frag
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = (2.0 * fragCoord - iResolution.xy) / iResolution.y;
    float t = iTime * 0.8;
    float v = sin(uv.x * 3.0 + t) + sin(uv.y * 4.0 - t * 1.3) + sin(length(uv) * 6.0 - t * 2.0);
    vec3 col = 0.5 + 0.5 * cos(v * 1.7 + vec3(0.0, 2.1, 4.2));
    fragColor = vec4(col, 1.0);
}
