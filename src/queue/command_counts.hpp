// How many commands other than launches ran directly and how many went to PoCL's queue,
// by command type and reason (hkGetCommandCounts, HOSTKERNEL_REPORT). One relaxed atomic
// increment per command (commands of several threads may count the same type at once).
//
//   countDirect(CL_COMMAND_READ_BUFFER);
//   countQueue(CL_COMMAND_READ_IMAGE, HK_REASON_MEM_KIND);
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

namespace hk::queue {

void countDirect(cl_command_type type);
void countQueue(cl_command_type type, hk_reason reason);
// The counts of `type`; false for a type that is not a command.
bool commandCounts(cl_command_type type, hk_command_counts *out);

}  // namespace hk::queue
