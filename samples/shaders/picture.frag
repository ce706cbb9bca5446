// A picture in iChannel0 (glreader-export --channel0 image:FILE, the filter's channel0=),
// slowly panned.
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.xy + vec2(iTime * 0.05, 0.0);
    fragColor = vec4(texture(iChannel0, uv).rgb, 1.0);
}
