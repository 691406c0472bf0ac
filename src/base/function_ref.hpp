// A reference to a callable: what std::function is to a call's parameter, without owning
// the callable, so that making one never allocates. It must not outlive the callable it
// refers to: name a lambda before making a FunctionRef of it unless the FunctionRef is a
// parameter of the call the lambda is written in.
//
//   auto resolve = [&](cl_mem m, void **out) { return lookup(m, out); };
//   FunctionRef<bool(cl_mem, void **)> ref = resolve;
//   ref(mem, &ptr);
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace hk {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                        std::is_invocable_r_v<R, F &, Args...>>>
  FunctionRef(F &&f)  // NOLINT: implicit, as std::function's
      : callable_(const_cast<void *>(static_cast<const void *>(std::addressof(f)))),
        call_([](void *c, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F> *>(c))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }

 private:
  void *callable_;
  R (*call_)(void *, Args...);
};

}  // namespace hk
