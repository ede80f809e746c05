// WRONG: 04.2 expect: NOT correct because: every word an element covers is put in the bank of the slot number, not of the word: right for 4-byte elements, and by luck for a consecutive 8-byte read, wrong for strided 8- and 16-byte reads
  const unsigned words_per_element = element_bytes / 4;
  for (const unsigned slot : slots)
    for (unsigned part = 0; part < words_per_element; ++part)
      words_of_bank[slot % 32].insert(std::uint64_t{slot} * words_per_element + part);
