// WRONG: 04.2 expect: broadcast because: words and banks are right, but every lane is counted, not every distinct word: lanes reading the same word would each need a wavefront
  const unsigned words_per_element = element_bytes / 4;
  for (std::size_t lane = 0; lane < slots.size(); ++lane)
    for (unsigned part = 0; part < words_per_element; ++part) {
      const std::uint64_t word = std::uint64_t{slots[lane]} * words_per_element + part;
      words_of_bank[word % 32].insert(word | (std::uint64_t{lane} << 40));
    }
