// WRONG: 05.2 expect: racecheck because: one __syncwarp() per step, after the writes only: lane l still reads s[l + offset] while lane l + offset writes it in the same step; the sums usually come out right
  Acc value = s[lane];
#pragma unroll
  for (unsigned offset = 32; offset > 0; offset /= 2) {
    value += s[lane + offset];
    s[lane] = value;
    __syncwarp();
  }
  return value;
