// WRONG: 02.1 expect: balance because: the weights are 1/F_i (relative errors read as "divide by T once"), refined from the fitted times: the sum minimised is Σ r_i²/F_i, which still lets the largest transfers outweigh the small ones
  std::vector<double> model(seconds.begin(), seconds.end());
  for (int iteration = 0; iteration < 4; ++iteration) {
    double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const double w = 1.0 / model[i];
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
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const double fitted = alpha + gamma * bytes[i];
      if (fitted > 0) model[i] = fitted;
    }
  }
