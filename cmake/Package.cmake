# `make package`: a Debian package, tether_<version>_amd64.deb.
# Depends are computed from the installed ELF files by dpkg-shlibdeps
# (CPACK_DEBIAN_PACKAGE_SHLIBDEPS); the few dependencies that are not
# linked libraries are named below with the reason.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tether)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tether maintainers <tether@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "graph-capture workspace lifetime checks (clang-tidy, Python) and runtime verifier")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # tether_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
# Not linked, but needed at run time:
# - libclang-common-22-dev: clang's builtin headers (the resource dir) that
#   every C++ analysis parses with;
# - python3: the interpreter the Python module is built for (its ABI tag);
# - clang-tidy-22 is only needed to load the plugin: recommended.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang-common-22-dev, python3 (>= 3.11), python3 (<< 3.12)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-22")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pre-commit, python3-torch")
# Only what a user needs: the tools and the runtime (not GTest or the demo).
set(CPACK_COMPONENTS_ALL tools runtime)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
include(CPack)
