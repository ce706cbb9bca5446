// The Sound pass: mainSound gives each sample's left and right, from -1 to 1, as on
// Shadertoy. A pentatonic arpeggio of plucked notes, four a second, with a soft echo.
float note(float time, float freq)
{
    return sin(6.2831853 * freq * time) * exp(-6.0 * time) * smoothstep(0.0, 0.005, time);
}

vec2 mainSound(int samp, float time)
{
    const float scale[5] = float[5](0.0, 2.0, 4.0, 7.0, 9.0);
    vec2 sum = vec2(0.0);
    for (int echo = 0; echo < 3; echo++) {
        float t = time - 0.375 * float(echo);
        if (t < 0.0)
            break;
        float beat = floor(t * 4.0);
        float degree = scale[int(mod(beat * 3.0, 5.0))] + 12.0 * mod(floor(beat / 5.0), 2.0);
        float n = note(fract(t * 4.0) / 4.0, 220.0 * exp2(degree / 12.0));
        float gain = 0.35 * pow(0.4, float(echo));
        sum += gain * n * (echo == 1 ? vec2(0.4, 1.0) : echo == 2 ? vec2(1.0, 0.4) : vec2(1.0));
    }
    return sum;
}
