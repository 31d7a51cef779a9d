// Signed records (proto/arbiter/v1/arbitration.proto: GetSignedRecord, GetRecordKeys; the format
// in docs/RECORDS.md): thin handlers over libs/arbitration/signed_record.h.
#include <string>
#include <utility>

#include "libs/arbitration/signed_record.h"
#include "libs/base/status_macros.h"
#include "libs/record/record.h"
#include "libs/service/policy.h"
#include "libs/store/game_store.h"
#include "services/arbitration/arbitration_service.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using service::CallContext;
using service::Principal;
using service::Role;

}  // namespace

void ArbitrationService::AddRecordPolicy() {
  // The record is the players' as much as the platform's (8.7: they sign the scoresheet): a
  // player reads his own game's; observers read the PGN (ExportPgn) through the broadcast delay.
  env_->policy().Add({FullMethod("GetSignedRecord"),
                      {Role::kPlatform, Role::kArbiter, Role::kService, Role::kPlayer},
                      true});
  env_->policy().Add({FullMethod("GetRecordKeys"), service::kAllRoles, false});
}

grpc::Status ArbitrationService::GetSignedRecord(grpc::ServerContext* ctx,
                                                 const v1::GetSignedRecordRequest* req,
                                                 v1::GetSignedRecordReply* resp) {
  return env_->Serve(
      ctx, FullMethod("GetSignedRecord"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(store::ValidateGameId(req->game_id()));
        ASSIGN_OR_RETURN(
            arbitration::RecordAnswer answer,
            arbitration::SignedRecordOf(
                *authority_, req->game_id(), options_.record_signer.get(),
                [&](absl::string_view event) { return service::CheckEvent(who, event); }));
        resp->set_record(std::move(answer.record));
        resp->set_signature_block(std::move(answer.signature_block));
        resp->set_archived(answer.archived);
        return absl::OkStatus();
      });
}

grpc::Status ArbitrationService::GetRecordKeys(grpc::ServerContext* ctx,
                                               const v1::GetRecordKeysRequest* req,
                                               v1::GetRecordKeysReply* resp) {
  return env_->Serve(ctx, FullMethod("GetRecordKeys"), *req,
                     [&](const CallContext&, const Principal&) -> absl::Status {
                       if (options_.record_signer == nullptr) return absl::OkStatus();
                       const arbitration::RecordSigner& signer = *options_.record_signer;
                       for (const record::PublicKey& key : signer.published().keys()) {
                         v1::RecordKey* out = resp->add_keys();
                         out->set_key_id(key.key_id());
                         out->set_public_key_pem(key.ToPem());
                         out->set_signing(key.key_id() == signer.key().key_id());
                       }
                       return absl::OkStatus();
                     });
}

}  // namespace arbitration_service
