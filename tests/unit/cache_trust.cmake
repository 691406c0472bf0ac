# unit.cache_trust_test reads the reasons for refused entries from the log (info level).
if(TEST unit.cache_trust_test)
  set_property(TEST unit.cache_trust_test APPEND PROPERTY ENVIRONMENT HOSTKERNEL_LOG=info)
endif()
