// Names PoCL's compiler gives to per-work-group state in a program's bitcode (program.bc
// of the poclbinary), for readers of that bitcode such as the stack estimate.
//
//   if (hk::pocl::isWorkGroupStateName(callee_name)) c.groups = true;
#pragma once

#include <string_view>

namespace hk::pocl {

// PoCL 3.1 keeps the work-item and work-group ids and sizes in module globals named
// _local_id_x, _local_size_x, _group_id_x and so on (the work-group variables of
// lib/llvmopencl/FlattenGlobals.cc), set per work-group by its work-item loops; its
// helpers that read them carry the same parts in their names. True for a name with one
// of those parts ("_local_" or "_group_").
inline bool isWorkGroupStateName(std::string_view name) {
  return name.find("_local_") != std::string_view::npos ||
         name.find("_group_") != std::string_view::npos;
}

}  // namespace hk::pocl
