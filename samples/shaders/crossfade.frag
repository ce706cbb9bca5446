// For glshader with inputs=2: from the first video to the second over the first second.
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec2 uv = fragCoord / iResolution.xy;
    fragColor = mix(texture(iChannel0, uv), texture(iChannel1, uv), clamp(iTime, 0.0, 1.0));
}
