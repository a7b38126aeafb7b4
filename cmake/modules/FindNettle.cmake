# FindNettle: Nettle (Debian's nettle-dev), the digests of the object-store client. Nettle ships
# a pkg-config file and no CMake package: this module finds it for find_package(Nettle) and
# defines the imported target Nettle::Nettle.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_Nettle QUIET nettle)
endif()
find_path(Nettle_INCLUDE_DIR nettle/sha2.h HINTS ${PC_Nettle_INCLUDE_DIRS})
find_library(Nettle_LIBRARY NAMES nettle HINTS ${PC_Nettle_LIBRARY_DIRS})
set(Nettle_VERSION ${PC_Nettle_VERSION})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Nettle REQUIRED_VARS Nettle_LIBRARY Nettle_INCLUDE_DIR VERSION_VAR Nettle_VERSION)
if(Nettle_FOUND AND NOT TARGET Nettle::Nettle)
  add_library(Nettle::Nettle UNKNOWN IMPORTED)
  set_target_properties(Nettle::Nettle PROPERTIES
    IMPORTED_LOCATION "${Nettle_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${Nettle_INCLUDE_DIR}")
endif()
mark_as_advanced(Nettle_INCLUDE_DIR Nettle_LIBRARY)
