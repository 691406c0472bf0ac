# team_executor_test counts launches by path: on the team always, although the calling
# thread alone may measure faster for its small kernels (launch/team_gain.hpp).
set_property(TEST integration.team_executor_test APPEND PROPERTY ENVIRONMENT HOSTKERNEL_ALWAYS_TEAM=1)
