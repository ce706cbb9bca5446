// For glshader: the input video (iChannel0), colours inverted.
void mainImage(out vec4 fragColor, in vec2 fragCoord)
{
    vec3 video = texture(iChannel0, fragCoord / iResolution.xy).rgb;
    fragColor = vec4(1.0 - video, 1.0);
}
