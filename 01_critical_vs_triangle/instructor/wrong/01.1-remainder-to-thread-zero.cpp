// WRONG: 01.1 expect: is NOT correct because: the rows left over go to thread 0, whose block then overlaps thread 1's, while the last rows stay unwalked: the row count adds up to n, the forces of the last atoms do not
    const auto team = static_cast<std::size_t>(threads), rank = static_cast<std::size_t>(t);
    const std::size_t rows_per_thread = n / team, left_over = n % team;
    const std::size_t first = rank * rows_per_thread;
    const std::size_t last = first + rows_per_thread + (rank == 0 ? left_over : 0);
