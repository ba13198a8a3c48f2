/* Stand-in for MPICH's libmpi.so.12, which DeePMD-kit's PyPI wheel links its PyTorch operators
   against although single-process inference never calls MPI (the device has Open MPI, not MPICH).
   Build: cc -shared -fPIC -Wl,-soname,libmpi.so.12 bench/mpi_stub.c -o /tmp/libmpi.so.12 */
int MPI_Initialized(int* flag) { *flag = 0; return 0; }
int MPIX_Query_cuda_support(void) { return 0; }
int MPI_Allreduce(void) { return 1; }
int MPI_Barrier(void) { return 1; }
int MPI_Comm_rank(void) { return 1; }
int MPI_Comm_size(void) { return 1; }
int MPI_Irecv(void) { return 1; }
int MPI_Send(void) { return 1; }
int MPI_Wait(void) { return 1; }
