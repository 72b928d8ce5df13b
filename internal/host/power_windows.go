package host

import (
	"log/slog"
	"sync"
	"syscall"
	"unsafe"
)

var (
	getSystemPowerStatus = syscall.NewLazyDLL("kernel32.dll").NewProc("GetSystemPowerStatus")

	powrprof                = syscall.NewLazyDLL("powrprof.dll")
	powerSettingRegister    = powrprof.NewProc("PowerSettingRegisterNotification")
	powerSettingUnregister  = powrprof.NewProc("PowerSettingUnregisterNotification")
	powerSuspendResumeReg   = powrprof.NewProc("PowerRegisterSuspendResumeNotification")
	powerSuspendResumeUnreg = powrprof.NewProc("PowerUnregisterSuspendResumeNotification")

	// The power settings whose changes are watched: GUID_ACDC_POWER_SOURCE and
	// GUID_POWER_SAVING_STATUS (the energy saver, once the battery saver).
	powerSettings = []syscall.GUID{
		{Data1: 0x5d3e9a59, Data2: 0xe9d5, Data3: 0x4b00, Data4: [8]byte{0xa6, 0xbd, 0xff, 0x34, 0xff, 0x51, 0x65, 0x48}},
		{Data1: 0xe00958c0, Data2: 0xc213, Data3: 0x4ace, Data4: [8]byte{0xac, 0x77, 0xfe, 0xcc, 0xed, 0x2e, 0xee, 0xa5}},
	}
	// powerSubscription is the DEVICE_NOTIFY_SUBSCRIBE_PARAMETERS every registration names.
	powerSubscription = deviceNotifySubscribeParameters{callback: syscall.NewCallback(onPowerNotify)}

	powerMu     sync.Mutex // guards powerNudges and the registrations
	powerNudges = map[chan<- struct{}]bool{}
)

const deviceNotifyCallback = 2 // DEVICE_NOTIFY_CALLBACK: Recipient is a DEVICE_NOTIFY_SUBSCRIBE_PARAMETERS

// deviceNotifySubscribeParameters is DEVICE_NOTIFY_SUBSCRIBE_PARAMETERS.
type deviceNotifySubscribeParameters struct {
	callback uintptr
	context  uintptr
}

// ReadPower asks GetSystemPowerStatus: the AC line, the battery's charge and whether the
// energy saver (battery saver) is on.
func ReadPower() Power {
	var s systemPowerStatus
	if r, _, _ := getSystemPowerStatus.Call(uintptr(unsafe.Pointer(&s))); r == 0 {
		return Power{Percent: -1}
	}
	return powerFromStatus(s)
}

// onPowerNotify is the DEVICE_NOTIFY_CALLBACK routine: a power setting changed (power source,
// energy saver) or the machine resumed from sleep. It only nudges the watchers, which read
// the whole state again.
func onPowerNotify(context, typ, setting uintptr) uintptr {
	powerMu.Lock()
	defer powerMu.Unlock()
	for c := range powerNudges {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	return 0
}

// notifyPower registers for the power-setting notifications of the power source and the
// energy saver, and for resume from sleep, all calling onPowerNotify; stop unregisters. A
// system without them (Wine 8 answers but never calls back) leaves WatchPower's polling.
func notifyPower(nudge chan<- struct{}) (stop func()) {
	powerMu.Lock()
	defer powerMu.Unlock()
	powerNudges[nudge] = true
	var settings []uintptr
	if powerSettingRegister.Find() == nil && powerSettingUnregister.Find() == nil {
		for i := range powerSettings {
			var h uintptr
			r, _, _ := powerSettingRegister.Call(uintptr(unsafe.Pointer(&powerSettings[i])), deviceNotifyCallback,
				uintptr(unsafe.Pointer(&powerSubscription)), uintptr(unsafe.Pointer(&h)))
			if r != 0 {
				slog.Info("no power-setting notification: the power mode follows a poll", "error", syscall.Errno(r))
				continue
			}
			settings = append(settings, h)
		}
	}
	var resume uintptr
	if powerSuspendResumeReg.Find() == nil && powerSuspendResumeUnreg.Find() == nil {
		if r, _, _ := powerSuspendResumeReg.Call(deviceNotifyCallback, uintptr(unsafe.Pointer(&powerSubscription)),
			uintptr(unsafe.Pointer(&resume))); r != 0 {
			resume = 0
		}
	}
	return func() {
		powerMu.Lock()
		defer powerMu.Unlock()
		for _, h := range settings {
			powerSettingUnregister.Call(h)
		}
		if resume != 0 {
			powerSuspendResumeUnreg.Call(resume)
		}
		delete(powerNudges, nudge)
	}
}
