/*
 * rt_otf2_records.h - the OTF2 event record types the neutral stream does not
 * model, as one X-macro list (internal to the OTF2 readers). Each entry gives the
 * library's callback name, the type's name as otf2-print prints it, and the
 * callback's parameters after (location, time, eventPosition, userData,
 * attributeList), each with a leading comma, so rt_otf2_cb.c can define one
 * counting callback per type with the exact signature the library's
 * per-location event reader calls. Taken from the OTF2 3.0
 * OTF2_EvtReaderCallbacks.h; a type newer than the library reaches the
 * Unknown callback.
 */
#ifndef RT_OTF2_RECORDS_H
#define RT_OTF2_RECORDS_H

#define RT_OTF2_SKIPPED_RECORDS(X) \
    X(Unknown, "UNKNOWN", ()) \
    X(BufferFlush, "BUFFER_FLUSH", (, OTF2_TimeStamp stopTime)) \
    X(MeasurementOnOff, "MEASUREMENT_ON_OFF", (, OTF2_MeasurementMode measurementMode)) \
    X(MpiIsendComplete, "MPI_ISEND_COMPLETE", (, uint64_t requestID)) \
    X(MpiIrecvRequest, "MPI_IRECV_REQUEST", (, uint64_t requestID)) \
    X(MpiRequestTest, "MPI_REQUEST_TEST", (, uint64_t requestID)) \
    X(MpiRequestCancelled, "MPI_REQUEST_CANCELLED", (, uint64_t requestID)) \
    X(OmpFork, "OMP_FORK", (, uint32_t numberOfRequestedThreads)) \
    X(OmpJoin, "OMP_JOIN", ()) \
    X(OmpAcquireLock, "OMP_ACQUIRE_LOCK", (, uint32_t lockID, uint32_t acquisitionOrder)) \
    X(OmpReleaseLock, "OMP_RELEASE_LOCK", (, uint32_t lockID, uint32_t acquisitionOrder)) \
    X(OmpTaskCreate, "OMP_TASK_CREATE", (, uint64_t taskID)) \
    X(OmpTaskSwitch, "OMP_TASK_SWITCH", (, uint64_t taskID)) \
    X(OmpTaskComplete, "OMP_TASK_COMPLETE", (, uint64_t taskID)) \
    X(ParameterString, "PARAMETER_STRING", (, OTF2_ParameterRef parameter, OTF2_StringRef string)) \
    X(ParameterInt, "PARAMETER_INT", (, OTF2_ParameterRef parameter, int64_t value)) \
    X(ParameterUnsignedInt, "PARAMETER_UNSIGNED_INT", (, OTF2_ParameterRef parameter, uint64_t value)) \
    X(RmaWinCreate, "RMA_WIN_CREATE", (, OTF2_RmaWinRef win)) \
    X(RmaWinDestroy, "RMA_WIN_DESTROY", (, OTF2_RmaWinRef win)) \
    X(RmaCollectiveBegin, "RMA_COLLECTIVE_BEGIN", ()) \
    X(RmaCollectiveEnd, "RMA_COLLECTIVE_END", (, OTF2_CollectiveOp collectiveOp, OTF2_RmaSyncLevel syncLevel, OTF2_RmaWinRef win, uint32_t root, uint64_t bytesSent, uint64_t bytesReceived)) \
    X(RmaGroupSync, "RMA_GROUP_SYNC", (, OTF2_RmaSyncLevel syncLevel, OTF2_RmaWinRef win, OTF2_GroupRef group)) \
    X(RmaRequestLock, "RMA_REQUEST_LOCK", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)) \
    X(RmaAcquireLock, "RMA_ACQUIRE_LOCK", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)) \
    X(RmaTryLock, "RMA_TRY_LOCK", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)) \
    X(RmaReleaseLock, "RMA_RELEASE_LOCK", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId)) \
    X(RmaSync, "RMA_SYNC", (, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType syncType)) \
    X(RmaWaitChange, "RMA_WAIT_CHANGE", (, OTF2_RmaWinRef win)) \
    X(RmaPut, "RMA_PUT", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)) \
    X(RmaGet, "RMA_GET", (, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)) \
    X(RmaAtomic, "RMA_ATOMIC", (, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type, uint64_t bytesSent, uint64_t bytesReceived, uint64_t matchingId)) \
    X(RmaOpCompleteBlocking, "RMA_OP_COMPLETE_BLOCKING", (, OTF2_RmaWinRef win, uint64_t matchingId)) \
    X(RmaOpCompleteNonBlocking, "RMA_OP_COMPLETE_NON_BLOCKING", (, OTF2_RmaWinRef win, uint64_t matchingId)) \
    X(RmaOpTest, "RMA_OP_TEST", (, OTF2_RmaWinRef win, uint64_t matchingId)) \
    X(RmaOpCompleteRemote, "RMA_OP_COMPLETE_REMOTE", (, OTF2_RmaWinRef win, uint64_t matchingId)) \
    X(ThreadFork, "THREAD_FORK", (, OTF2_Paradigm model, uint32_t numberOfRequestedThreads)) \
    X(ThreadJoin, "THREAD_JOIN", (, OTF2_Paradigm model)) \
    X(ThreadTeamBegin, "THREAD_TEAM_BEGIN", (, OTF2_CommRef threadTeam)) \
    X(ThreadTeamEnd, "THREAD_TEAM_END", (, OTF2_CommRef threadTeam)) \
    X(ThreadAcquireLock, "THREAD_ACQUIRE_LOCK", (, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)) \
    X(ThreadReleaseLock, "THREAD_RELEASE_LOCK", (, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)) \
    X(ThreadTaskCreate, "THREAD_TASK_CREATE", (, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)) \
    X(ThreadTaskSwitch, "THREAD_TASK_SWITCH", (, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)) \
    X(ThreadTaskComplete, "THREAD_TASK_COMPLETE", (, OTF2_CommRef threadTeam, uint32_t creatingThread, uint32_t generationNumber)) \
    X(ThreadCreate, "THREAD_CREATE", (, OTF2_CommRef threadContingent, uint64_t sequenceCount)) \
    X(ThreadBegin, "THREAD_BEGIN", (, OTF2_CommRef threadContingent, uint64_t sequenceCount)) \
    X(ThreadWait, "THREAD_WAIT", (, OTF2_CommRef threadContingent, uint64_t sequenceCount)) \
    X(ThreadEnd, "THREAD_END", (, OTF2_CommRef threadContingent, uint64_t sequenceCount)) \
    X(CallingContextEnter, "CALLING_CONTEXT_ENTER", (, OTF2_CallingContextRef callingContext, uint32_t unwindDistance)) \
    X(CallingContextLeave, "CALLING_CONTEXT_LEAVE", (, OTF2_CallingContextRef callingContext)) \
    X(CallingContextSample, "CALLING_CONTEXT_SAMPLE", (, OTF2_CallingContextRef callingContext, uint32_t unwindDistance, OTF2_InterruptGeneratorRef interruptGenerator)) \
    X(IoCreateHandle, "IO_CREATE_HANDLE", (, OTF2_IoHandleRef handle, OTF2_IoAccessMode mode, OTF2_IoCreationFlag creationFlags, OTF2_IoStatusFlag statusFlags)) \
    X(IoDestroyHandle, "IO_DESTROY_HANDLE", (, OTF2_IoHandleRef handle)) \
    X(IoDuplicateHandle, "IO_DUPLICATE_HANDLE", (, OTF2_IoHandleRef oldHandle, OTF2_IoHandleRef newHandle, OTF2_IoStatusFlag statusFlags)) \
    X(IoSeek, "IO_SEEK", (, OTF2_IoHandleRef handle, int64_t offsetRequest, OTF2_IoSeekOption whence, uint64_t offsetResult)) \
    X(IoChangeStatusFlags, "IO_CHANGE_STATUS_FLAGS", (, OTF2_IoHandleRef handle, OTF2_IoStatusFlag statusFlags)) \
    X(IoDeleteFile, "IO_DELETE_FILE", (, OTF2_IoParadigmRef ioParadigm, OTF2_IoFileRef file)) \
    X(IoOperationBegin, "IO_OPERATION_BEGIN", (, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode, OTF2_IoOperationFlag operationFlags, uint64_t bytesRequest, uint64_t matchingId)) \
    X(IoOperationTest, "IO_OPERATION_TEST", (, OTF2_IoHandleRef handle, uint64_t matchingId)) \
    X(IoOperationIssued, "IO_OPERATION_ISSUED", (, OTF2_IoHandleRef handle, uint64_t matchingId)) \
    X(IoOperationComplete, "IO_OPERATION_COMPLETE", (, OTF2_IoHandleRef handle, uint64_t bytesResult, uint64_t matchingId)) \
    X(IoOperationCancelled, "IO_OPERATION_CANCELLED", (, OTF2_IoHandleRef handle, uint64_t matchingId)) \
    X(IoAcquireLock, "IO_ACQUIRE_LOCK", (, OTF2_IoHandleRef handle, OTF2_LockType lockType)) \
    X(IoReleaseLock, "IO_RELEASE_LOCK", (, OTF2_IoHandleRef handle, OTF2_LockType lockType)) \
    X(IoTryLock, "IO_TRY_LOCK", (, OTF2_IoHandleRef handle, OTF2_LockType lockType)) \
    X(ProgramBegin, "PROGRAM_BEGIN", (, OTF2_StringRef programName, uint32_t numberOfArguments, const OTF2_StringRef* programArguments)) \
    X(ProgramEnd, "PROGRAM_END", (, int64_t exitStatus)) \
    X(NonBlockingCollectiveRequest, "NON_BLOCKING_COLLECTIVE_REQUEST", (, uint64_t requestID)) \
    X(NonBlockingCollectiveComplete, "NON_BLOCKING_COLLECTIVE_COMPLETE", (, OTF2_CollectiveOp collectiveOp, OTF2_CommRef communicator, uint32_t root, uint64_t sizeSent, uint64_t sizeReceived, uint64_t requestID)) \
    X(CommCreate, "COMM_CREATE", (, OTF2_CommRef communicator)) \
    X(CommDestroy, "COMM_DESTROY", (, OTF2_CommRef communicator))

#endif
