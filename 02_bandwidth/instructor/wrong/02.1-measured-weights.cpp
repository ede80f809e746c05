// WRONG: 02.1 expect: balance because: each point is weighted by its measured time (1/T_i²) and solved once; α and β come out close, but a point that happened to come out fast gets extra say, and the residuals over the fitted times do not balance
  {
    double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const double w = 1.0 / (seconds[i] * seconds[i]);
      const double x = bytes[i] * scale;
      sw += w;
      swx += w * x;
      swxx += w * x * x;
      swy += w * seconds[i];
      swxy += w * x * seconds[i];
    }
    const double det = sw * swxx - swx * swx;
    if (!(det > 0)) throw std::invalid_argument("fit: degenerate sizes");
    alpha = (swxx * swy - swx * swxy) / det;
    gamma = (sw * swxy - swx * swy) / det * scale;
  }
