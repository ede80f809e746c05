# Header-only dependencies: the system's packages first (Debian: doctest-dev libcli11-dev
# nlohmann-json3-dev), else fetched at a pinned release tag, so a student with internet needs only the
# CUDA toolkit, CMake and a compiler.
include(FetchContent)

find_package(doctest QUIET)
if(NOT TARGET doctest::doctest)
  message(STATUS "doctest not found: fetching v2.4.11")
  FetchContent_Declare(doctest GIT_REPOSITORY https://github.com/doctest/doctest.git
    GIT_TAG v2.4.11 GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(doctest)
endif()

find_package(CLI11 QUIET)
if(NOT TARGET CLI11::CLI11)
  message(STATUS "CLI11 not found: fetching v2.4.2")
  FetchContent_Declare(cli11 GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git
    GIT_TAG v2.4.2 GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(cli11)
endif()

find_package(nlohmann_json 3.10 QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  message(STATUS "nlohmann_json not found: fetching v3.11.3")
  FetchContent_Declare(nlohmann_json GIT_REPOSITORY https://github.com/nlohmann/json.git
    GIT_TAG v3.11.3 GIT_SHALLOW TRUE)
  set(JSON_BuildTests OFF CACHE INTERNAL "")
  FetchContent_MakeAvailable(nlohmann_json)
endif()
