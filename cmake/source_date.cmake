# CKPT_SOURCE_EPOCH: the time the source is from, in seconds since 1970, for the dates the build
# writes into its outputs (the man pages' date, the Debian changelog): SOURCE_DATE_EPOCH when set
# (reproducible builds), else the time of the checkout's last commit, else now. Outputs built
# twice from the same source then carry the same date.
if(DEFINED ENV{SOURCE_DATE_EPOCH})
  set(CKPT_SOURCE_EPOCH $ENV{SOURCE_DATE_EPOCH})
else()
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%ct WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE CKPT_SOURCE_EPOCH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT CKPT_SOURCE_EPOCH MATCHES "^[0-9]+$")
    string(TIMESTAMP CKPT_SOURCE_EPOCH "%s" UTC)
  endif()
endif()

# `var` = the source's time formatted by string(TIMESTAMP)'s `format`, in UTC.
function(ckpt_source_date var format)
  if(DEFINED ENV{SOURCE_DATE_EPOCH})
    string(TIMESTAMP out "${format}" UTC)
  else()
    set(ENV{SOURCE_DATE_EPOCH} ${CKPT_SOURCE_EPOCH})
    string(TIMESTAMP out "${format}" UTC)
    unset(ENV{SOURCE_DATE_EPOCH})
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()
