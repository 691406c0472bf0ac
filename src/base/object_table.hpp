// A map from OpenCL handles to hostkernel's records that the launch path reads without a
// lock: open addressing over a fixed array of atomic slots. Writers (creation, release:
// never on the launch path) serialise on a mutex. A removed key leaves a tombstone that
// later inserts reuse; a released handle is remembered (value kReleased) until its slot is
// reused, so that a launch of a released kernel is answered with an error, not a crash.
//
//   ObjectTable<queue::KernelEntry> kernels;
//   if (queue::KernelEntry *k = kernels.find(handle); k && k != kernels.released()) ...
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace hk {

template <typename T, std::size_t kLog2Capacity = 15>
class ObjectTable {
 public:
  static constexpr std::size_t kCapacity = std::size_t{1} << kLog2Capacity;
  static constexpr std::size_t kMaxProbe = 64;

  constexpr ObjectTable() = default;

  // The record of `key`, released() if it was released, or null.
  T *find(const void *key) const {
    std::size_t h = hash(key);
    for (std::size_t i = 0; i < kMaxProbe; ++i) {
      const Slot &s = slots_[(h + i) & (kCapacity - 1)];
      const void *k = s.key.load(std::memory_order_acquire);
      if (k == key) return s.value.load(std::memory_order_acquire);
      if (k == nullptr) return nullptr;
    }
    return nullptr;
  }

  static T *released() { return reinterpret_cast<T *>(std::uintptr_t{1}); }

  // Makes `key` map to `value` (which may be released()). Returns the previous record
  // (owned by the caller now, may be null or released()), or `value` itself when the
  // table has no room near the key's slot (the caller keeps ownership and the object
  // stays unknown).
  T *insert(const void *key, T *value) {
    std::lock_guard lock(write_);
    std::size_t h = hash(key);
    Slot *reusable = nullptr;
    for (std::size_t i = 0; i < kMaxProbe; ++i) {
      Slot &s = slots_[(h + i) & (kCapacity - 1)];
      const void *k = s.key.load(std::memory_order_relaxed);
      if (k == key) return s.value.exchange(value, std::memory_order_acq_rel);
      if (!reusable && (k == tombstone() || isReleasedSlot(s))) reusable = &s;
      if (k == nullptr) {
        if (!reusable) reusable = &s;
        break;
      }
    }
    if (!reusable) return value;
    // Publish the value before the key so that a reader that sees the key sees it.
    reusable->value.store(value, std::memory_order_release);
    reusable->key.store(key, std::memory_order_release);
    return nullptr;
  }

  // Removes `key`; with remember_release its slot answers released() until reused.
  // Returns the record that was there (owned by the caller now) or null.
  T *remove(const void *key, bool remember_release) {
    std::lock_guard lock(write_);
    std::size_t h = hash(key);
    for (std::size_t i = 0; i < kMaxProbe; ++i) {
      Slot &s = slots_[(h + i) & (kCapacity - 1)];
      const void *k = s.key.load(std::memory_order_relaxed);
      if (k == nullptr) return nullptr;
      if (k != key) continue;
      T *old = s.value.exchange(remember_release ? released() : nullptr,
                                std::memory_order_acq_rel);
      if (!remember_release) s.key.store(tombstone(), std::memory_order_release);
      return old == released() ? nullptr : old;
    }
    return nullptr;
  }

  // Calls f(key, record) for every live record, under the writers' lock.
  template <typename F>
  void forEach(F &&f) const {
    std::lock_guard lock(write_);
    for (std::size_t i = 0; i < kCapacity; ++i) {
      const void *k = slots_[i].key.load(std::memory_order_relaxed);
      T *v = slots_[i].value.load(std::memory_order_relaxed);
      if (k && k != tombstone() && v && v != released()) f(k, v);
    }
  }

 private:
  struct Slot {
    std::atomic<const void *> key{nullptr};
    std::atomic<T *> value{nullptr};
  };

  static const void *tombstone() { return reinterpret_cast<const void *>(std::uintptr_t{1}); }
  static bool isReleasedSlot(const Slot &s) {
    return s.value.load(std::memory_order_relaxed) == released();
  }
  // Handles are heap addresses: drop the alignment bits, then mix.
  static std::size_t hash(const void *key) {
    auto x = reinterpret_cast<std::uintptr_t>(key) >> 4;
    x *= 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(x >> (64 - kLog2Capacity));
  }

  // Inline and constant-initialised: the table is usable before any constructor runs,
  // and reaching it costs no indirection. Pages are touched only where keys land.
  Slot slots_[kCapacity];
  mutable std::mutex write_;
};

// True for a record pointer that is neither null nor released() (both are below 2).
template <typename T>
inline bool isEntry(T *p) {
  return reinterpret_cast<std::uintptr_t>(p) > 1;
}

}  // namespace hk
