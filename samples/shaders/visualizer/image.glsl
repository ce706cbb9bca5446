// A music visualizer: iChannel0 is the sound (the file given with --audio, or the filter's
// audio=): row 0 of its texture is the spectrum, row 1 the waveform, as on Shadertoy.
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.xy;
    float spectrum = texture(iChannel0, vec2(uv.x, 0.25)).r;
    float wave = texture(iChannel0, vec2(uv.x, 0.75)).r;
    vec3 bars = uv.y < spectrum ? mix(vec3(0.1, 0.4, 1.0), vec3(1.0, 0.3, 0.6), uv.y) : vec3(0.02);
    float line = smoothstep(0.01, 0.0, abs(uv.y - wave));
    fragColor = vec4(bars + line * vec3(1.0, 0.9, 0.5), 1.0);
}
