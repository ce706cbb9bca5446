// The project's own sound, seen: iChannel0 is a sound channel without a file, which plays
// the Sound pass (sound.glsl) when glreader-export renders it as the sound track. Row 0 of
// its texture is the spectrum, row 1 the waveform, as on Shadertoy.
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.xy;
    float spectrum = texture(iChannel0, vec2(pow(uv.x, 2.0) * 0.5, 0.25)).r;
    float wave = texture(iChannel0, vec2(uv.x, 0.75)).r;
    vec3 sky = mix(vec3(0.03, 0.02, 0.08), vec3(0.1, 0.05, 0.2), uv.y);
    vec3 bars = uv.y < spectrum ? mix(vec3(1.0, 0.55, 0.1), vec3(0.9, 0.2, 0.5), uv.y / max(spectrum, 0.01)) : sky;
    float line = smoothstep(0.008, 0.0, abs(uv.y - wave));
    fragColor = vec4(bars + line * vec3(0.6, 0.9, 1.0), 1.0);
}
