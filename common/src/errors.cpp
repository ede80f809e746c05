#include "common/errors.hpp"

#include <cstdio>
#include <exception>


namespace course {

int run_main(const char* program, int (*body)(int, char**), int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const ExitRequest& e) {
    return e.code;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s (see --help)\n", program, e.what());
    return exit_usage;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s: skipped: %s\n", program, e.what());
    return exit_no_device;
  } catch (const WrongResultError& e) {
    std::fprintf(stderr, "%s: wrong result: %s\n", program, e.what());
    return exit_failure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return exit_failure;
  }
}

}  // namespace course
