# Writes the man page: runs CMD --help-man into OUT, and fails the build
# (leaving no OUT behind) when the command fails or writes nothing.
#   cmake -DCMD=path/to/aflame-render -DOUT=aflame-render.1 -P man.cmake
execute_process(COMMAND ${CMD} --help-man
                OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE status)
file(SIZE ${OUT}.tmp size)
if(NOT status EQUAL 0 OR size EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${CMD} --help-man failed (${status})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
