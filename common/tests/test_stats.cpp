#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "common/stats.hpp"

using course::summarize;

TEST_CASE("summarize reports the median of an odd and an even number of samples") {
  const std::vector<double> odd{5, 1, 3};
  CHECK(summarize(odd).median == doctest::Approx(3));
  const std::vector<double> even{4, 1, 3, 2};
  CHECK(summarize(even).median == doctest::Approx(2.5));
}

TEST_CASE("summarize gives min, max, mean, sample stddev and coefficient of variation") {
  const std::vector<double> s{2, 4, 4, 4, 5, 5, 7, 9};
  const auto st = summarize(s);
  CHECK(st.count == 8);
  CHECK(st.min == 2);
  CHECK(st.max == 9);
  CHECK(st.mean == doctest::Approx(5));
  CHECK(st.stddev == doctest::Approx(2.138089935).epsilon(1e-9));  // sqrt(32/7)
  CHECK(st.cv == doctest::Approx(2.138089935 / 5).epsilon(1e-9));
}

TEST_CASE("one slow outlier moves the mean but not the median") {
  const std::vector<double> s{1.0, 1.0, 1.0, 1.0, 100.0};
  const auto st = summarize(s);
  CHECK(st.median == doctest::Approx(1.0));
  CHECK(st.mean > 10.0);
}

TEST_CASE("a single sample has zero spread; no samples is an error") {
  const std::vector<double> one{3.5};
  const auto st = summarize(one);
  CHECK(st.median == 3.5);
  CHECK(st.stddev == 0);
  CHECK(st.cv == 0);
  CHECK_THROWS_AS(summarize(std::vector<double>{}), std::invalid_argument);
}
