# cmake -DOUT=dir -DSEEDS="a;b" -P gather_seeds.cmake
# Copies every seed file (directories searched recursively) into OUT, each
# under a name made from its path, so seeds of the same name do not collide.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
foreach(_s ${SEEDS})
  if(IS_DIRECTORY ${_s})
    file(GLOB_RECURSE _files LIST_DIRECTORIES false ${_s}/*)
  else()
    set(_files ${_s})
  endif()
  foreach(_f ${_files})
    string(MD5 _h "${_f}")
    get_filename_component(_n ${_f} NAME)
    file(COPY_FILE ${_f} ${OUT}/${_h}-${_n})
  endforeach()
endforeach()
