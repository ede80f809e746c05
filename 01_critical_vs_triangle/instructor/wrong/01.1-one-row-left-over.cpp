// WRONG: 01.1 expect: is NOT correct because: the last thread takes one extra row when one is left over, which fixes team sizes that leave a remainder of 0 or 1 and no other
    const auto team = static_cast<std::size_t>(threads), rank = static_cast<std::size_t>(t);
    const std::size_t rows_per_thread = n / team;
    const std::size_t first = rank * rows_per_thread;
    const std::size_t last = first + rows_per_thread + (rank + 1 == team && n % team == 1 ? 1 : 0);
