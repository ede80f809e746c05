# wave_fd_find_mpi(<target_var> <why_var>)
#   The NCCL backend can take its ranks and NCCL's id from MPI (under mpirun); without MPI, ranks share the
#   id through a file (--nccl-id-file, which --launch sets up). Sets <target_var> to the target to link
#   (MPI::MPI_CXX) when MPI is usable, otherwise to "" and <why_var> to one line saying why not.
#
#   FindMPI is not called blindly: an MPI runtime installed without its headers (Debian's openmpi-bin
#   without libopenmpi-dev) has a wrapper that names include folders which do not exist, and FindMPI's own
#   test compile then stops the whole configure ("Imported target MPI::MPI_CXX includes non-existent
#   path", CMake 3.25). So the wrapper is asked first, and FindMPI runs only when what it names exists.
function(wave_fd_find_mpi target_var why_var)
  set(${target_var} "" PARENT_SCOPE)
  if(NOT MPI_CXX_COMPILER)
    find_program(MPI_CXX_COMPILER NAMES mpicxx mpic++ mpiCC DOC "MPI C++ compiler wrapper")
  endif()
  if(NOT MPI_CXX_COMPILER)
    set(${why_var} "no MPI compiler wrapper (mpicxx) found" PARENT_SCOPE)
    return()
  endif()

  # How the wrapper compiles: Open MPI answers -showme:compile, MPICH -compile_info, others -show.
  set(compile_line "")
  foreach(flag IN ITEMS -showme:compile -compile_info -show)
    execute_process(COMMAND "${MPI_CXX_COMPILER}" ${flag} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(rc EQUAL 0 AND NOT out STREQUAL "")
      set(compile_line "${out}")
      break()
    endif()
  endforeach()
  if(compile_line STREQUAL "")
    set(${why_var} "${MPI_CXX_COMPILER} does not say how it compiles (-showme:compile, -compile_info, -show)"
        PARENT_SCOPE)
    return()
  endif()

  separate_arguments(words UNIX_COMMAND "${compile_line}")
  set(include_dirs "")
  set(next_is_dir FALSE)
  foreach(word IN LISTS words)
    if(next_is_dir)
      list(APPEND include_dirs "${word}")
      set(next_is_dir FALSE)
    elseif(word STREQUAL "-I" OR word STREQUAL "-isystem")
      set(next_is_dir TRUE)
    elseif(word MATCHES "^-isystem(.+)$")  # one MATCHES per branch: a failed one clears CMAKE_MATCH_1
      list(APPEND include_dirs "${CMAKE_MATCH_1}")
    elseif(word MATCHES "^-I(.+)$")
      list(APPEND include_dirs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(have_header FALSE)
  foreach(dir IN LISTS include_dirs)
    if(NOT IS_DIRECTORY "${dir}")
      set(${why_var} "${MPI_CXX_COMPILER} names the include folder ${dir}, which does not exist (MPI runtime without its development headers?)"
          PARENT_SCOPE)
      return()
    endif()
    if(EXISTS "${dir}/mpi.h")
      set(have_header TRUE)
    endif()
  endforeach()
  if(include_dirs AND NOT have_header)
    set(${why_var} "no mpi.h in the include folders of ${MPI_CXX_COMPILER}" PARENT_SCOPE)
    return()
  endif()

  find_package(MPI QUIET COMPONENTS CXX)
  if(NOT MPI_CXX_FOUND)
    set(${why_var} "FindMPI cannot build an MPI program with ${MPI_CXX_COMPILER}" PARENT_SCOPE)
    return()
  endif()
  # The target is linked only when every folder it carries exists (a missing one fails the generate step).
  foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
    if(NOT IS_DIRECTORY "${dir}")
      set(${why_var} "MPI's include folder ${dir} does not exist" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${target_var} MPI::MPI_CXX PARENT_SCOPE)
  set(${why_var} "" PARENT_SCOPE)
endfunction()
