# Install rules for what a user runs or links, and the Debian package.
# Everything is relative to the prefix; nothing installed refers to the
# build tree (the tools find clang's resource dir at run time, the runtime
# libraries find each other through $ORIGIN).
install(TARGETS tether RUNTIME DESTINATION bin COMPONENT tools)
if(TARGET tether-clangd)
  install(TARGETS tether-clangd RUNTIME DESTINATION bin COMPONENT tools)
endif()
# The clang-tidy plugin: clang-tidy-22 --load=<prefix>/lib/tether/libTetherTidy.so
install(TARGETS TetherTidy LIBRARY DESTINATION lib/tether COMPONENT tools)
install(FILES ${TETHER_GENERATED_INCLUDE}/tether/version.h
  DESTINATION include/tether COMPONENT runtime)
install(FILES README.md DESTINATION share/doc/tether COMPONENT tools)
install(DIRECTORY docs/ DESTINATION share/doc/tether/docs COMPONENT tools)
# pre-commit reads hook definitions from a repository; this copy documents
# the hook ids for a project's .pre-commit-config.yaml (repo: local).
install(FILES .pre-commit-hooks.yaml DESTINATION share/tether COMPONENT tools)

include(cmake/Package.cmake)
