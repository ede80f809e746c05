// WRONG: 01.1 expect: names `find_variant` because: the planted bug's rows left unwalked and every force handed to another strategy with the right partition, full_list_vectorized (issue 40): every force right, none of the exercise's work; the grader refuses the name before anything is built
    const std::size_t first = 0, last = 0;  // no row of its own: thread 0 hands them all to another strategy
    if (t == 0) find_variant("full_list_vectorized")->compute(in, f, ws, 1);
